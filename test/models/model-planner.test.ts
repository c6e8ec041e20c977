import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultPlannerPrompt, ModelPlanner, parseReply } from '../../models/model-planner.js';
import { parseViewMessage } from '../../models/planner-view.js';
import { promptHash } from '../../models/prompt-file.js';
import type { WorkingContext } from '../../runtime/working-context.js';
import {
  ANTHROPIC_BASE_URL,
  OPENAI_BASE_URL,
  startProviderServer,
  type ProviderServer,
  type Respond,
} from '../support/provider-server.js';

const openai = createOpenAI({ apiKey: 'sk-test', baseURL: OPENAI_BASE_URL }).chat('gpt-4o-mini');
const anthropic = createAnthropic({ apiKey: 'sk-ant-test', baseURL: ANTHROPIC_BASE_URL })(
  'claude-sonnet-4-5',
);

const context: WorkingContext = {
  runId: 'r1',
  objective: 'Refund 25.00 on ord_4',
  decisionBoundary: 'execute',
  mode: 'bounded',
  input: { order_id: 'ord_4' },
  planVersion: 1,
  operations: [{ id: 'order', tool: 'get_order', kind: 'read', status: 'pending' }],
  evidence: [],
  scope: { input: { order_id: 'ord_4' } },
};

const ACT = {
  kind: 'act',
  operationId: 'order',
  tool: 'get_order',
  args: { order_id: 'ord_4' },
  origin: { kind: 'blueprint' },
};

let respond: Respond = () => ({ status: 599 });
let provider: ProviderServer;
beforeAll(() => {
  provider = startProviderServer((request) => respond(request));
});
afterAll(() => {
  provider.close();
});

describe('ModelPlanner', () => {
  it.each([
    ['OpenAI', openai],
    ['Anthropic', anthropic],
  ])(
    'asks %s for one JSON proposal and returns the raw object with the usage',
    async (_, model) => {
      respond = () => ({
        text: JSON.stringify(ACT),
        usage: { inputTokens: 321, outputTokens: 17 },
      });
      const planner = new ModelPlanner({ model });
      const answer = await planner.propose(context);
      expect(answer.proposal).toEqual(ACT);
      // No meter around this model: tokens as the provider reported them, no price, no cost.
      expect(answer.usage).toEqual({ inputTokens: 321, outputTokens: 17, costUsd: 0 });
      const request = provider.calls.at(-1)?.request;
      expect(request?.system).toBe(defaultPlannerPrompt());
      expect(request?.messages).toHaveLength(1);
      expect(parseViewMessage(request?.messages[0]?.text ?? '')?.objective).toBe(context.objective);
    },
  );

  it('uses the run’s prompt, temperature and seed, and names the prompt by its hash', async () => {
    respond = () => ({ text: '```json\n' + JSON.stringify(ACT) + '\n```' });
    const system = 'Plan carefully.\n';
    const planner = new ModelPlanner({
      model: openai,
      settings: { system, temperature: 0, seed: 42 },
    });
    expect(planner.versions).toEqual({ model: 'gpt-4o-mini', prompt: promptHash(system) });
    expect((await planner.propose(context)).proposal).toEqual(ACT);
    const request = provider.calls.at(-1)?.request;
    expect(request?.system).toBe(system);
    expect(request?.body).toMatchObject({ temperature: 0, seed: 42 });
  });

  it('hands back a reply that is not JSON as its text, for the runtime to refuse', async () => {
    respond = () => ({ text: 'Sure! Refunding now.' });
    const answer = await new ModelPlanner({ model: openai }).propose(context);
    expect(answer.proposal).toBe('Sure! Refunding now.');
  });

  it('throws a provider error classified, once: the SDK does not retry, the supervisor decides', async () => {
    respond = () => ({ status: 429, headers: { 'retry-after': '30' } });
    const before = provider.calls.length;
    const error = await new ModelPlanner({ model: openai }).propose(context).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(provider.calls.length - before).toBe(1);
    expect(error).toMatchObject({
      name: 'PlannerCallError',
      failureClass: 'rate_limited',
      retryAfterMs: 30_000,
    });
    expect((error as Error).message).toMatch(/^model call failed \(rate_limited\): /);

    respond = () => ({ status: 503 });
    await expect(new ModelPlanner({ model: openai }).propose(context)).rejects.toMatchObject({
      name: 'PlannerCallError',
      failureClass: 'transient',
    });
  });
});

describe('parseReply', () => {
  it('reads a bare or fenced JSON object, else returns the text', () => {
    expect(parseReply(' {"kind":"finish","summary":"done"} ')).toEqual({
      kind: 'finish',
      summary: 'done',
    });
    expect(parseReply('```\n{"kind":"escalate","reason":"x"}\n```')).toEqual({
      kind: 'escalate',
      reason: 'x',
    });
    expect(parseReply('finish')).toBe('finish');
  });
});
