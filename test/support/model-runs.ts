import { APICallError } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { caseResult, type SuiteCase } from '../../bin/suite.js';
import { NO_FAULTS } from '../../faults/catalog.js';
import type { ModelSetup } from '../../models/model-setup.js';
import { ResultsWriter, runResultSchema, type RunResult } from '../../reports/results.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { runScenario } from '../../scenarios/runner.js';
import type { Trajectory } from '../../scenarios/trajectory.js';
import { runRecord, type RunSpec } from './result-sets.js';

/**
 * Runs with a model, for the reports' tests: hand-made records carrying model usage, and one
 * real run of a scenario in process whose agent calls `run.model` (the SDK's mock model behind
 * the harness's own meter) so its trajectory holds real model calls.
 */

/** A hand-made record of a run that had a model, with the usage it reports. */
export function modelRecord(
  spec: RunSpec,
  usage: {
    modelCalls: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    modelLatencyMs: number;
  },
  model: NonNullable<RunResult['model']> = {
    id: 'openai:gpt-test',
    promptHash: 'sha256:0123456789ab',
    temperature: 0,
    seed: 7,
  },
): RunResult {
  const base = runRecord(spec);
  return runResultSchema.parse({ ...base, model, figures: { ...base.figures, ...usage } });
}

/** Markup a model might answer with: it must show as text and never run. */
export const HOSTILE_REPLY =
  'Done. <script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
/** A reply longer than any report shows whole. */
export const LONG_REPLY = `${'The refund is settled. '.repeat(100)}END`;

type Generated = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const usage = (input: number, output: number): Generated['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** The prices of the test model: $2.50 in, $10 out per million tokens. */
export const PRICES = { inputPerMillion: 2.5, outputPerMillion: 10 };

/**
 * The model's answers, in order: a tool call, a hostile reply (a model fault noted on it), a
 * long reply, then a 429. Latency comes through the meter's metadata so figures are exact.
 */
function scriptedModel(): MockLanguageModelV3 {
  const replies: Generated[] = [
    {
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call_1',
          toolName: 'lookup_order',
          input: JSON.stringify({ order_id: 'ord_1' }),
        },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: usage(120, 15),
      providerMetadata: { faultline: { latencyMs: 350 } },
      warnings: [],
    },
    {
      content: [{ type: 'text', text: HOSTILE_REPLY }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(180, 40),
      providerMetadata: {
        faultline: { latencyMs: 650, fault: 'invalid-output: reply garbled' },
      },
      warnings: [],
    },
    {
      content: [{ type: 'text', text: LONG_REPLY }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(300, 200),
      providerMetadata: { faultline: { latencyMs: 1_000 } },
      warnings: [],
    },
  ];
  let n = 0;
  return new MockLanguageModelV3({
    doGenerate: () => {
      const reply = replies[n++];
      if (reply) return Promise.resolve(reply);
      return Promise.reject(
        new APICallError({
          message: 'Rate limit reached for requests',
          url: 'https://api.openai.test/v1/chat/completions',
          requestBodyValues: {},
          statusCode: 429,
          responseHeaders: { 'retry-after': '2' },
          isRetryable: true,
        }),
      );
    },
  });
}

/**
 * An agent that talks to its model: one tool loop (a tool call, then a reply), a follow-up
 * turn carrying the whole conversation, and one more call that is rate limited.
 */
function chattyAgent(): AgentUnderTest {
  return {
    name: 'chatty',
    version: '1.0.0',
    exposes: { model: true },
    async start(run) {
      const { model } = run;
      if (!model) throw new Error('chatty needs a model');
      const system = run.modelSettings?.system ?? 'You settle refunds. Be brief.';
      const first = await generateText({
        model,
        system,
        prompt: 'Refund order ord_1 in full.',
        tools: {
          lookup_order: tool({
            description: 'Looks an order up',
            inputSchema: z.object({ order_id: z.string() }),
            execute: ({ order_id }) => Promise.resolve({ order_id, total: 42 }),
          }),
        },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      const messages = [
        { role: 'user' as const, content: 'Refund order ord_1 in full.' },
        ...first.response.messages,
        { role: 'user' as const, content: 'Summarise what you did.' },
      ];
      await generateText({ model, system, messages, maxRetries: 0 });
      try {
        await generateText({
          model,
          system,
          messages: [...messages, { role: 'user', content: 'Again.' }],
          maxRetries: 0,
        });
      } catch {
        return { status: 'stopped', reason: 'model-unavailable' };
      }
      return { status: 'completed' };
    },
  };
}

/** The model setup the run is given (the mock model through the API). */
export function testModelSetup(): ModelSetup {
  return {
    spec: 'openai:gpt-test',
    provider: 'openai',
    api: 'openai',
    modelId: 'gpt-test',
    prices: PRICES,
    temperature: 0,
    seed: 7,
    prompt: { path: 'prompts/test.md', text: 'You settle refunds.', hash: 'sha256:0123456789ab' },
    languageModel: scriptedModel(),
  };
}

/**
 * One real run of the full refund by the chatty agent with the scripted model, graded and
 * written as a result set of one run under `out`: its record and trajectory.
 */
export async function runWithModel(
  out: string,
): Promise<{ result: RunResult; trajectory: Trajectory }> {
  const seed = fullRefund.world.seed;
  const agent = chattyAgent();
  const run = await runScenario(fullRefund, {
    outDir: out,
    agent: () => agent,
    seed,
    model: testModelSetup(),
  });
  const c: SuiteCase = {
    index: 0,
    id: `chatty|supervised|${fullRefund.id}|none|0`,
    scenario: fullRefund,
    faultPlan: NO_FAULTS,
    trial: 0,
    seed,
    mode: 'supervised',
    replay: `npx faultline run ${fullRefund.id} --agent chatty --model openai:gpt-test`,
  };
  const { result, trajectory } = caseResult(c, { name: agent.name, version: '1.0.0' }, run);
  const writer = new ResultsWriter(out, { fresh: true });
  writer.append(result, trajectory);
  writer.close();
  return { result, trajectory };
}
