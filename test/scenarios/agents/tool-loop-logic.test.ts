import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelSetup } from '../../../models/model-setup.js';
import {
  ToolLoopAgent,
  toolLoopDefaultPrompt,
  toolLoopFirstMessage,
  toolLoopPromptFile,
} from '../../../scenarios/agents/tool-loop.js';
import { runTrial } from '../../../scenarios/engine.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import { tmpOut } from '../../support/trial-harness.js';

const out = tmpOut();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

type Generated = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const text = (t: string): Generated => ({
  content: [{ type: 'text', text: t }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage,
  warnings: [],
});
const readOrder = (): Generated => ({
  content: [
    { type: 'tool-call', toolCallId: 'c', toolName: 'get_order', input: '{"order_id":"ord_4"}' },
  ],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});

/** Runs partial-refund with tool-loop on a mock model answering `answer` each step. */
async function run(
  answer: (options: CallOptions) => Generated,
  settings: Partial<Pick<ModelSetup, 'temperature' | 'seed'>> & { system?: string } = {},
) {
  const seen: CallOptions[] = [];
  const languageModel = new MockLanguageModelV3({
    doGenerate: (options) => {
      seen.push(options);
      return Promise.resolve(answer(options));
    },
  });
  const { system, ...rest } = settings;
  const model: ModelSetup = {
    spec: 'mock:scripted',
    provider: 'mock',
    api: 'openai',
    modelId: 'scripted',
    languageModel,
    ...rest,
    ...(system === undefined ? {} : { prompt: { path: 'p.md', text: system, hash: 'sha256:0' } }),
  };
  const { trajectory } = await runTrial({
    scenario: partialRefund,
    agent: () => new ToolLoopAgent(),
    outDir: out,
    model,
  });
  return { trajectory, seen };
}

describe('tool-loop logic (the SDK mock model)', () => {
  it('answers completed with the model’s final text', async () => {
    const { trajectory } = await run(() => text('All done, refunded.'));
    expect(trajectory.outcome).toMatchObject({
      state: 'completed',
      stopReason: null,
      detail: 'All done, refunded.',
    });
  });

  it('answers stopped with the model’s reason when the model says STOPPED', async () => {
    const { trajectory } = await run(() => text('STOPPED: the order is not mine to refund\nsorry'));
    expect(trajectory.outcome.state).toBe('stopped');
    expect(trajectory.outcome.stopReason).toBe('the order is not mine to refund');
  });

  it('stops at the step cap: the contract’s tool-call budget plus one', async () => {
    const { trajectory, seen } = await run(readOrder);
    expect(seen).toHaveLength(partialRefund.contract.budgets.toolCalls + 1);
    expect(trajectory.outcome).toMatchObject({
      state: 'stopped',
      stopReason: 'step limit reached',
    });
  });

  it('uses the default prompt, or the run’s, with its temperature and seed', async () => {
    const byDefault = await run(() => text('ok'));
    expect(byDefault.seen[0]?.prompt[0]).toEqual({
      role: 'system',
      content: toolLoopDefaultPrompt(),
    });
    expect(byDefault.seen[0]?.prompt[1]).toMatchObject({
      role: 'user',
      content: [
        {
          type: 'text',
          text: toolLoopFirstMessage({
            objective: partialRefund.contract.objective,
            input: partialRefund.input,
          }),
        },
      ],
    });
    const mine = await run(() => text('ok'), { system: 'Be terse.', temperature: 0.2, seed: 7 });
    expect(mine.seen[0]?.prompt[0]).toEqual({ role: 'system', content: 'Be terse.' });
    expect(mine.seen[0]).toMatchObject({ temperature: 0.2, seed: 7 });
  });

  it('refuses to run without a model, in one line that says how to give one', async () => {
    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: () => new ToolLoopAgent(),
      outDir: out,
    });
    expect(trajectory.calls).toEqual([]);
    expect(JSON.stringify(trajectory.outcome)).toContain('--model PROVIDER:MODEL');
  });

  it('names its default prompt by the hash of prompts/tool-loop.md', () => {
    const bytes = readFileSync(new URL('../../../prompts/tool-loop.md', import.meta.url));
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
    expect(toolLoopPromptFile()).toEqual({
      path: 'prompts/tool-loop.md',
      text: bytes.toString('utf8'),
      hash: `sha256:${hash}`,
    });
  });
});
