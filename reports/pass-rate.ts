import { passHatK } from '../graders/metrics.js';
import type { RunResult } from './results.js';

/**
 * pass^k per scenario and fault plan (and agent and mode: runs of different agents never share
 * a group), averaged over the groups that ran at least k trials; null when none did. With k = 1
 * it is the pass rate; with k > 1, τ-bench's pass^k: C(c, k) / C(n, k) per group.
 */
export function passRate(
  results: readonly RunResult[],
  k: number,
  passed: (r: RunResult) => boolean,
): number | null {
  const groups = new Map<string, { n: number; c: number }>();
  for (const r of results) {
    const key = JSON.stringify([r.agent, r.mode, r.scenarioId, r.faultPlanId]);
    const g = groups.get(key) ?? { n: 0, c: 0 };
    g.n++;
    if (passed(r)) g.c++;
    groups.set(key, g);
  }
  const rates = [...groups.values()]
    .map((g) => passHatK(g.n, g.c, k))
    .filter((x): x is number => x !== null);
  return rates.length === 0 ? null : rates.reduce((a, b) => a + b, 0) / rates.length;
}

/** The most trials any (agent, mode, scenario, plan) group ran: the largest k pass^k can take. */
export function mostTrials(results: readonly RunResult[]): number {
  const groups = new Map<string, number>();
  for (const r of results) {
    const key = JSON.stringify([r.agent, r.mode, r.scenarioId, r.faultPlanId]);
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return Math.max(1, ...groups.values());
}
