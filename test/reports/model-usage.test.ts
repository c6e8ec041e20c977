import { describe, expect, it } from 'vitest';
import {
  formatLatency,
  formatUsd,
  modelText,
  modelTotals,
  usageText,
} from '../../reports/model-usage.js';
import { modelRecord } from '../support/model-runs.js';
import { runRecord } from '../support/result-sets.js';

describe('model usage', () => {
  it('sums the runs that had a model and is null when none had one', () => {
    const a = modelRecord(
      { trial: 0 },
      { modelCalls: 2, inputTokens: 300, outputTokens: 55, costUsd: 0.0013, modelLatencyMs: 1000 },
    );
    const b = modelRecord(
      { trial: 1 },
      { modelCalls: 1, inputTokens: 1000, outputTokens: 5, costUsd: 0.0001, modelLatencyMs: 250 },
    );
    expect(modelTotals([runRecord()])).toBeNull();
    expect(modelTotals([a, b, runRecord({ trial: 2 })])).toEqual({
      runs: 2,
      modelCalls: 3,
      inputTokens: 1300,
      outputTokens: 60,
      costUsd: 0.0014,
      modelLatencyMs: 1250,
    });
  });

  it('formats dollars, latency and the model for people', () => {
    expect([0, 0.000123, 0.5, 0.0014, 12.345].map(formatUsd)).toEqual([
      '$0.00',
      '$0.000123',
      '$0.50',
      '$0.0014',
      '$12.35',
    ]);
    expect([350, 4_200, 185_000].map(formatLatency)).toEqual(['350ms', '4.2s', '3m 5s']);
    expect(
      usageText({
        modelCalls: 1,
        inputTokens: 12_345,
        outputTokens: 6,
        costUsd: 0.03,
        modelLatencyMs: 900,
      }),
    ).toBe('1 model call · 12,345 in / 6 out tokens · $0.03 · 900ms model latency');
    expect(modelText({ id: 'openai:gpt-test', promptHash: null, temperature: null, seed: 3 })).toBe(
      'openai:gpt-test · prompt built-in · seed 3',
    );
  });
});
