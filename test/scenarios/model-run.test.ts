import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { ModelSetup } from '../../models/model-setup.js';
import { runTrial } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import modelToolAgent from '../fixtures/agents/model-tool-agent.js';
import {
  ANTHROPIC_BASE_URL,
  COMPAT_BASE_URL,
  OPENAI_BASE_URL,
  scriptedAnswers,
  startProviderServer,
  type ProviderServer,
} from '../support/provider-server.js';
import { tmpOut } from '../support/trial-harness.js';

const KEY_ENV = 'FAULTLINE_TEST_MODEL_KEY';
const KEY = 'sk-faultline-test-secret-0123456789';
const PRICES = { inputPerMillion: 2, outputPerMillion: 10 };

const SETUPS: Record<string, ModelSetup> = {
  openai: {
    spec: 'openai:gpt-x',
    provider: 'openai',
    api: 'openai',
    modelId: 'gpt-x',
    baseURL: OPENAI_BASE_URL,
    apiKeyEnv: KEY_ENV,
    prices: PRICES,
  },
  anthropic: {
    spec: 'anthropic:claude-x',
    provider: 'anthropic',
    api: 'anthropic',
    modelId: 'claude-x',
    baseURL: ANTHROPIC_BASE_URL,
    apiKeyEnv: KEY_ENV,
    prices: PRICES,
  },
  'openai-compatible': {
    spec: 'local:llama-x',
    provider: 'local',
    api: 'openai-compatible',
    modelId: 'llama-x',
    baseURL: COMPAT_BASE_URL,
    apiKeyEnv: KEY_ENV,
    prices: PRICES,
  },
};

/** Every file under a folder, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let provider: ProviderServer | undefined;
beforeAll(() => {
  process.env[KEY_ENV] = KEY;
});
afterAll(() => {
  Reflect.deleteProperty(process.env, KEY_ENV);
});
afterEach(() => {
  provider?.close();
  provider = undefined;
});

describe.each(Object.keys(SETUPS))('a run whose agent calls a %s model over HTTP', (api) => {
  it('meters every call into the trajectory: usage, cost, latency; the key is sent, never written', async () => {
    provider = startProviderServer(
      scriptedAnswers([
        {
          toolCalls: [{ name: 'get_order', args: { order_id: 'ord_4' } }],
          usage: { inputTokens: 1000, outputTokens: 100 },
        },
        {
          text: `I read order ord_4 (${KEY} must never be stored)`,
          usage: { inputTokens: 3000, outputTokens: 50 },
        },
      ]),
    );
    const outDir = tmpOut();
    const run = await runTrial({
      scenario: partialRefund,
      agent: () => modelToolAgent,
      outDir,
      model: SETUPS[api] as ModelSetup,
    });
    const t = run.trajectory;
    expect(t.model).toEqual({
      id: SETUPS[api]?.spec,
      promptHash: null,
      temperature: null,
      seed: null,
    });
    expect(t.modelCalls?.map((c) => c.usage)).toEqual([
      { inputTokens: 1000, outputTokens: 100 },
      { inputTokens: 3000, outputTokens: 50 },
    ]);
    // $2 and $10 per million: 1000 in + 100 out = $0.003; 3000 in + 50 out = $0.0065.
    expect(t.modelCalls?.[0]?.costUsd).toBeCloseTo(0.003, 10);
    expect(t.modelCalls?.[1]?.costUsd).toBeCloseTo(0.0065, 10);
    for (const call of t.modelCalls ?? []) expect(call.latencyMs).toBeGreaterThanOrEqual(0);
    expect(t.modelCalls?.[0]?.reply?.toolCalls).toMatchObject([
      { name: 'get_order', args: { order_id: 'ord_4' } },
    ]);
    expect(t.calls.map((c) => c.tool)).toContain('get_order');
    // The key went to the provider, in its header …
    expect(JSON.stringify(provider.calls[0]?.request.headers)).toContain(KEY);
    // … and nowhere faultline keeps anything.
    expect(JSON.stringify(t)).not.toContain(KEY);
    expect(t.outcome.detail).toContain('[REDACTED]');
    for (const file of filesUnder(outDir))
      expect(readFileSync(file).includes(KEY), file).toBe(false);
  });
});

describe('the contract cost budget, held against metered spend', () => {
  it('stops an agent whose model spend passes the budget, and refuses its further calls', async () => {
    // Each call costs $0.003; the budget allows one.
    provider = startProviderServer(() => ({
      toolCalls: [{ name: 'get_order', args: { order_id: 'ord_4' } }],
      usage: { inputTokens: 1000, outputTokens: 100 },
    }));
    const scenario: Scenario = {
      ...partialRefund,
      contract: {
        ...partialRefund.contract,
        budgets: { ...partialRefund.contract.budgets, costUsd: 0.004 },
      },
    };
    const run = await runTrial({
      scenario,
      agent: () => modelToolAgent,
      outDir: tmpOut(),
      model: SETUPS.openai as ModelSetup,
    });
    expect(run.trajectory.outcome).toMatchObject({
      state: 'stopped',
      stopReason: 'budget-exhausted',
    });
    expect(run.trajectory.outcome.detail).toMatch(
      /model spend \$0\.0060 passed the contract's cost budget of \$0\.004/,
    );
    expect(provider.calls).toHaveLength(2);
    expect(run.trajectory.modelCalls).toHaveLength(2);
  });
});
