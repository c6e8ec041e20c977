import { streamText } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelSetup } from '../../models/model-setup.js';
import { openRunModel } from '../../models/run-model.js';
import type { ModelCallRecord } from '../../scenarios/trajectory.js';
import {
  ANTHROPIC_BASE_URL,
  OPENAI_BASE_URL,
  startProviderServer,
  type ProviderServer,
} from '../support/provider-server.js';

const SETUPS: Record<string, ModelSetup> = {
  openai: {
    spec: 'openai:gpt-x',
    provider: 'openai',
    api: 'openai',
    modelId: 'gpt-x',
    baseURL: OPENAI_BASE_URL,
    apiKeyEnv: 'FAULTLINE_METER_TEST_KEY',
    prices: { inputPerMillion: 1, outputPerMillion: 4 },
  },
  anthropic: {
    spec: 'anthropic:claude-x',
    provider: 'anthropic',
    api: 'anthropic',
    modelId: 'claude-x',
    baseURL: ANTHROPIC_BASE_URL,
    apiKeyEnv: 'FAULTLINE_METER_TEST_KEY',
    prices: { inputPerMillion: 1, outputPerMillion: 4 },
  },
};

// Set for this file's tests and taken away after them: the next file in this worker must not find it.
beforeAll(() => {
  process.env.FAULTLINE_METER_TEST_KEY = 'sk-meter-test-0123456789';
});
afterAll(() => {
  Reflect.deleteProperty(process.env, 'FAULTLINE_METER_TEST_KEY');
});
let provider: ProviderServer | undefined;
afterEach(() => {
  provider?.close();
  provider = undefined;
});

function opened(setup: ModelSetup, calls: ModelCallRecord[]) {
  let order = 0;
  return openRunModel(setup, {
    runId: 'run-1',
    now: () => 0,
    sequence: () => ++order,
    incarnation: () => 0,
    onCall: (call) => calls.push(call),
  });
}

describe.each(Object.keys(SETUPS))('the meter on a streamed %s call', (api) => {
  it('records the assembled reply, the usage and the cost once the stream ends', async () => {
    provider = startProviderServer(() => ({
      text: 'streamed answer',
      usage: { inputTokens: 2000, outputTokens: 500 },
    }));
    const calls: ModelCallRecord[] = [];
    const { model } = opened(SETUPS[api] as ModelSetup, calls);
    const result = streamText({ model, prompt: 'go', maxRetries: 0 });
    expect(await result.text).toBe('streamed answer');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      index: 1,
      reply: { text: 'streamed answer', toolCalls: [], finishReason: 'stop' },
      error: null,
      usage: { inputTokens: 2000, outputTokens: 500 },
    });
    // 2000 × $1 + 500 × $4 per million.
    expect(calls[0]?.costUsd).toBeCloseTo(0.004, 10);
  });

  it('records a refused stream as an error of its class', async () => {
    provider = startProviderServer(() => ({ status: 429, headers: { 'retry-after': '2' } }));
    const calls: ModelCallRecord[] = [];
    const { model } = opened(SETUPS[api] as ModelSetup, calls);
    const result = streamText({ model, prompt: 'go', maxRetries: 0, onError: () => undefined });
    await expect(result.text).rejects.toThrow();
    expect(calls.map((c) => c.error?.class)).toEqual(['rate_limited']);
  });
});
