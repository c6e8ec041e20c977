import { describe, expect, it } from 'vitest';
import { roundOrder } from '../../bench/durable-step.js';

describe('durable-step rounds', () => {
  it('alternates floor and runtime, mirrored around one LangGraph run, swapping sides every other round', () => {
    expect(roundOrder(0, 2)).toEqual([
      'floor',
      'runtime',
      'floor',
      'runtime',
      'langgraph',
      'runtime',
      'floor',
      'runtime',
      'floor',
    ]);
    expect(roundOrder(1, 1)).toEqual(['runtime', 'floor', 'langgraph', 'floor', 'runtime']);
  });

  it('gives floor and runtime the same number of runs and the same mean position in every round', () => {
    for (const pairs of [1, 2, 3]) {
      for (const round of [0, 1]) {
        const order = roundOrder(round, pairs);
        const at = (who: string) => order.flatMap((w, i) => (w === who ? [i] : []));
        expect(at('floor')).toHaveLength(2 * pairs);
        expect(at('runtime')).toHaveLength(2 * pairs);
        expect(at('langgraph')).toEqual([2 * pairs]);
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        expect(mean(at('floor'))).toBe(mean(at('runtime')));
      }
    }
  });
});
