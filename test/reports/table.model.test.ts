import { describe, expect, it } from 'vitest';
import { renderTable } from '../../reports/table.js';
import { modelRecord } from '../support/model-runs.js';
import { runRecord } from '../support/result-sets.js';

/** Hand-made records with exact usage: two trials of one plan, one of another, one without. */
const runs = [
  modelRecord(
    { trial: 0 },
    { modelCalls: 2, inputTokens: 300, outputTokens: 55, costUsd: 0.0013, modelLatencyMs: 1000 },
  ),
  modelRecord(
    { trial: 1, fail: { outcome: ['state-mismatch'] } },
    { modelCalls: 1, inputTokens: 1000, outputTokens: 5, costUsd: 0.0001, modelLatencyMs: 250 },
  ),
  modelRecord(
    { faultPlanId: 'refund-ack-lost', faultKinds: ['lost-ack'] },
    { modelCalls: 3, inputTokens: 2000, outputTokens: 100, costUsd: 0.006, modelLatencyMs: 4200 },
  ),
].map((r, index) => ({ ...r, index }));

describe('renderTable with a model', () => {
  const table = renderTable({ results: runs, k: 1 }, { color: false });
  const lines = table.split('\n');

  it('names the model and its prompt above the table', () => {
    expect(lines[0]).toBe(
      'model openai:gpt-test · prompt sha256:0123456789ab · temperature 0 · seed 7',
    );
  });

  it('shows model usage per scenario × fault plan and for the suite', () => {
    const cells = (first: string, second: string): string[] => {
      const line = lines.find((l) => {
        const c = l.split('│').map((x) => x.trim());
        return c[1] === first && c[2] === second && l.includes('$');
      });
      if (!line) throw new Error(`no usage row ${first} / ${second} in\n${table}`);
      return line
        .split('│')
        .slice(1, -1)
        .map((c) => c.trim());
    };
    expect(table).toContain('Model usage (per scenario × fault plan, summed over its trials)');
    expect(cells('refunds/full-refund', 'none')).toEqual([
      'refunds/full-refund',
      'none',
      '3',
      '1,300',
      '60',
      '$0.0014',
      '1.3s',
    ]);
    expect(cells('refunds/full-refund', 'refund-ack-lost').slice(2)).toEqual([
      '3',
      '2,000',
      '100',
      '$0.006',
      '4.2s',
    ]);
    expect(cells('total', '').slice(2)).toEqual(['6', '3,300', '160', '$0.0074', '5.5s']);
    expect(lines.at(-1)).toBe(
      'model usage of 3 run(s): 6 model calls · 3,300 in / 160 out tokens · $0.0074 · 5.5s model latency',
    );
  });

  it('names the model and its usage beside a failing run', () => {
    expect(table).toContain(
      '    model: openai:gpt-test · prompt sha256:0123456789ab · temperature 0 · seed 7 · 1 model call · 1,000 in / 5 out tokens · $0.0001 · 250ms model latency',
    );
  });

  it('says nothing of models when no run had one', () => {
    const plain = renderTable({ results: [runRecord()], k: 1 }, { color: false });
    expect(plain).not.toMatch(/model/i);
  });

  it('says when tokens were counted but the model had no prices', () => {
    const unpriced = modelRecord(
      {},
      { modelCalls: 1, inputTokens: 10, outputTokens: 2, costUsd: 0, modelLatencyMs: 5 },
    );
    const text = renderTable({ results: [unpriced], k: 1 }, { color: false });
    expect(text.split('\n').at(-1)).toMatch(
      /\$0\.00 · 5ms model latency \(no prices for the model: cost not counted\)$/,
    );
  });
});
