import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  explore,
  judgePlan,
  type ExploreAgent,
  type ExploreResult,
  type PlanJudges,
} from '../../explore/explore.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-explore-judges-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const agent = zooAgent('no-reconcile')!;

/**
 * Judges that answer out of order: plans judged four at a time, each four's verdicts given
 * last first, as threads finishing at different speeds would answer.
 */
function outOfOrder(asked: number[], judging: ExploreAgent = agent): PlanJudges {
  return {
    async judge(scenario, plans, options, onJudged, stop) {
      asked.push(plans.length);
      const order = plans.map((_, i) => i);
      for (let at = 0; at < order.length && !stop(); at += 4) {
        const slice = order.slice(at, at + 4);
        const judged = await Promise.all(
          slice.map((i) =>
            judgePlan({ scenario, agent: judging, ...options, outDir: dir }, plans[i]!),
          ),
        );
        for (const [k, i] of [...slice.entries()].reverse())
          onJudged(i, judged[k]!.violations.length > 0 ? judged[k] : undefined);
      }
    },
  };
}

describe('explore with judges', () => {
  it('finds the same counterexample, path, runs and shrinks as alone, whatever order the verdicts come in', async () => {
    const options = { scenario: partialRefund, agent, runs: 60, seed: 10, outDir: dir };
    const alone = await explore(options);
    const asked: number[] = [];
    const judged = await explore({ ...options, judges: outOfOrder(asked) });

    expect(asked).toEqual([60]);
    expect(alone.kind).toBe('counterexample');
    const strip = ({
      elapsedMs: _e,
      trajectory,
      ...rest
    }: typeof alone & { trajectory?: unknown }) => ({
      ...rest,
      trajectory: JSON.stringify(trajectory ?? null).replace(/"wallMs":[\d.e+-]+/g, ''),
    });
    expect(strip(judged)).toEqual(strip(alone));
  }, 60_000);

  it('ends a search where every plan passed exactly as alone', async () => {
    const reference = zooAgent('reference')!;
    const options = { scenario: partialRefund, agent: reference, runs: 12, seed: 3, outDir: dir };
    const progress: number[] = [];
    const alone = await explore(options);
    const judged = await explore({
      ...options,
      judges: outOfOrder([], reference),
      onProgress: (p) => progress.push(p.runs),
    });

    expect(alone.kind).toBe('passed');
    const strip = ({ elapsedMs: _e, ...rest }: ExploreResult) => rest;
    expect(strip(judged)).toEqual(strip(alone));
    expect(progress.at(-1)).toBe(12);
  }, 60_000);

  it('refuses invariants of its own: judges check the built-in ones', async () => {
    await expect(
      explore({
        scenario: partialRefund,
        agent,
        runs: 2,
        seed: 1,
        outDir: dir,
        invariants: [],
        judges: outOfOrder([]),
      }),
    ).rejects.toThrow(/leave invariants out/);
  });
});
