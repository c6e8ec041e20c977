import { generateText } from 'ai';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toPlannerCallError } from '../../models/model-error.js';
import type { ModelSetup } from '../../models/model-setup.js';
import { openProviderModel } from '../../models/providers.js';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { parseBlueprint, type Blueprint } from '../../runtime/blueprint.js';
import { ReferenceRuntime } from '../../runtime/runtime.js';
import type { AgentRecords, AgentUnderTest } from '../../scenarios/agent.js';
import type { Trajectory } from '../../scenarios/trajectory.js';
import { runTrial } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { plan, tmpOut } from '../support/trial-harness.js';
import type { Planner } from '../../runtime/planner.js';
import { ScriptedPlanner } from '../../runtime/scripted-planner.js';
import { RunStore } from '../../runtime/store.js';
import {
  ORDER,
  refundBlueprint,
  refundContract,
  refundHarness,
} from '../support/refund-harness.js';

// End to end: the reference runtime with a tiny planner that asks a real provider (the AI SDK's
// OpenAI provider, over HTTP to msw) for each proposal, SDK retries off — the supervisor decides.
const BASE = 'http://openai.test/v1';
const server = setupServer();
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  process.env.FAULTLINE_TEST_KEY = 'sk-test-not-a-real-key';
});
afterEach(() => {
  server.resetHandlers();
});
afterAll(() => {
  server.close();
  delete process.env.FAULTLINE_TEST_KEY;
});

const setup: ModelSetup = {
  spec: 'openai:gpt-4o-mini',
  provider: 'openai',
  api: 'openai',
  modelId: 'gpt-4o-mini',
  baseURL: BASE,
  apiKeyEnv: 'FAULTLINE_TEST_KEY',
};

/**
 * Proposes what the model answers. The prompt carries the blueprint's next proposal, and the
 * model served below echoes it: every proposal makes the round trip through the provider code.
 */
function echoPlanner(
  model: LanguageModelV3,
  blueprint: Blueprint,
): { planner: Planner; answered: () => number } {
  const scripted = new ScriptedPlanner(blueprint);
  let answered = 0;
  const planner: Planner = {
    versions: { model: setup.spec, prompt: 'echo' },
    propose: async (context) => {
      const next = (await scripted.propose(context)).proposal;
      try {
        const { text } = await generateText({ model, prompt: JSON.stringify(next), maxRetries: 0 });
        answered++;
        return { proposal: JSON.parse(text) as unknown };
      } catch (error) {
        throw toPlannerCallError(error);
      }
    },
  };
  return { planner, answered: () => answered };
}

const providerPlanner = () =>
  echoPlanner(openProviderModel(setup), parseBlueprint(refundBlueprint(true)));

/** The OpenAI API: the queued failures first, then a completion echoing the user's message. */
function openai(failures: (() => Response)[]): { requests: () => number } {
  let requests = 0;
  server.use(
    http.post(`${BASE}/chat/completions`, async ({ request }) => {
      requests++;
      const fail = failures.shift();
      if (fail) return fail();
      const body = (await request.json()) as { messages: { role: string; content: unknown }[] };
      const last = body.messages.at(-1)?.content;
      const content = typeof last === 'string' ? last : JSON.stringify(last);
      return HttpResponse.json({
        id: `chatcmpl-${requests}`,
        object: 'chat.completion',
        created: 0,
        model: setup.modelId,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
      });
    }),
  );
  return { requests: () => requests };
}

const apiError =
  (status: number, message: string, headers: Record<string, string> = {}) =>
  () =>
    HttpResponse.json({ error: { message, type: 'error', code: null } }, { status, headers });

async function runRefund() {
  const h = refundHarness({ honourKeys: true });
  const connection = await h.connect();
  const store = RunStore.open(h.storePath);
  const { planner, answered } = providerPlanner();
  const outcome = await h.runtime(connection, store, { planner }).start({
    runId: 'run-1',
    input: { order_id: ORDER },
    contract: refundContract(),
    blueprint: refundBlueprint(true),
  });
  const events = store.events('run-1');
  store.close();
  await connection.close();
  return { outcome, events, refunds: h.refunds(), virtualMs: h.clock.now(), answered: answered() };
}

describe('the reference runtime with a planner behind a real provider', () => {
  it('waits out a 429 retry-after in virtual time, backs off a 503, and completes once', async () => {
    const api = openai([
      apiError(429, 'Rate limit reached for gpt-4o-mini', { 'retry-after': '20' }),
      apiError(503, 'The server is overloaded'),
    ]);

    const r = await runRefund();

    expect(r.outcome.state).toBe('completed');
    expect(r.refunds).toHaveLength(1);
    const planner = r.events.filter((e) => e.operationId === 'planner');
    expect(planner.map((e) => [e.type, e.resultClass])).toEqual([
      ['supervisor.wait', 'rate_limited'],
      ['supervisor.retry', 'transient'],
    ]);
    expect(planner[0]?.data).toEqual({ delayMs: 20_000 });
    expect(r.virtualMs).toBeGreaterThanOrEqual(20_000);
    // Two failed requests, then one per proposal: nothing retried behind the supervisor's back.
    expect(r.answered).toBeGreaterThanOrEqual(4);
    expect(api.requests()).toBe(2 + r.answered);
  });

  it('stops for a person on a 401, asking the provider nothing more', async () => {
    const api = openai([apiError(401, 'Incorrect API key provided')]);

    const r = await runRefund();

    expect(r.outcome).toMatchObject({ state: 'blocked', stopReason: 'permission-lost' });
    expect(r.outcome.detail).toMatch(/unauthenticated/);
    expect(api.requests()).toBe(1);
    expect(r.refunds).toHaveLength(0);
  });
});

/** The reference runtime with the echo planner on `run.model`: what the engine meters and faults. */
function runtimeOnModel(): AgentUnderTest {
  const records = (path: string, runId: string) => {
    const store = RunStore.open(path);
    try {
      return {
        events: store.events(runId),
        actions: store.actions(runId),
        checkpoints: store.checkpoints(runId),
      };
    } finally {
      store.close();
    }
  };
  return {
    name: 'test-runtime-on-model',
    exposes: { probes: true, planner: true, model: true, clock: true },
    start: async (run) => {
      if (!run.model) throw new Error('the run has no model');
      const store = RunStore.open(run.storePath);
      try {
        const runtime = new ReferenceRuntime({
          store,
          client: run.client,
          clock: run.clock,
          credential: run.credential,
          operator: run.operator,
          signal: run.signal,
          planner: echoPlanner(run.model, run.blueprint).planner,
          ...(run.decoratePlanner ? { decoratePlanner: run.decoratePlanner } : {}),
        });
        return await runtime.start({
          runId: run.runId,
          contract: run.contract,
          blueprint: run.blueprint,
          input: run.input,
        });
      } finally {
        store.close();
      }
    },
    records,
  };
}

const eventsOf = (t: Trajectory) => (t.agentRecords as AgentRecords | null)?.events ?? [];

describe('through the engine: model faults and provider errors meet the supervisor', () => {
  it('a garbled reply at model call 2 is regenerated by the runtime; the run completes, one refund', async () => {
    openai([]);

    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: runtimeOnModel,
      faultPlan: plan('garbled', { kind: 'invalid-output', trigger: { on: 'proposal', nth: 2 } }),
      outDir: tmpOut(),
      model: setup,
    });

    expect(trajectory.outcome.state).toBe('completed');
    expect(trajectory.faults.fired).toHaveLength(1);
    expect(trajectory.modelCalls?.[1]?.fault).toMatch(/garbled/);
    const events = eventsOf(trajectory);
    expect(events.filter((e) => e.type === 'planner.invalid-output')).toHaveLength(1);
    expect(trajectory.ledger.filter((e) => e.tool === 'issue_refund')).toHaveLength(1);
  });

  it('a 429 is recorded on the model call and waited out on the run clock', async () => {
    openai([apiError(429, 'Rate limit reached', { 'retry-after': '20' })]);

    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: runtimeOnModel,
      outDir: tmpOut(),
      model: setup,
    });

    expect(trajectory.outcome.state).toBe('completed');
    expect(trajectory.modelCalls?.[0]?.error?.class).toBe('rate_limited');
    const wait = eventsOf(trajectory).find((e) => e.type === 'supervisor.wait');
    expect(wait).toMatchObject({ operationId: 'planner', data: { delayMs: 20_000 } });
    expect(trajectory.modelCalls?.[1]?.at).toBeGreaterThanOrEqual(20_000);
  });
});
