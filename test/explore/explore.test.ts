import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCase, suiteCases } from '../../bin/suite.js';
import { explorePlan } from '../../explore/arbitraries.js';
import {
  explore,
  judgePlan,
  type ExploreCounterexample,
  type ExploreProgress,
} from '../../explore/explore.js';
import { regressionFileName, regressionFor } from '../../explore/regression.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { regressionSchema, type Regression } from '../../scenarios/regression.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-explore-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a saved regression as `faultline run` does: through the suite, graded. */
async function runRegression(regression: Regression, agent: string): Promise<boolean> {
  const folder = mkdtempSync(join(dir, 'regressions-'));
  writeFileSync(
    join(folder, `${regression.faultPlan.id}.json`),
    JSON.stringify(regressionSchema.parse(regression)),
  );
  const cases = await suiteCases({
    globs: [regression.scenario],
    agent,
    faults: 'all',
    plan: regression.faultPlan.id,
    trials: 1,
    scenarioFiles: [],
    regressions: folder,
  });
  expect(cases).toHaveLength(1);
  const { result } = await runCase(cases[0]!, agent, join(dir, 'out'));
  return result.pass;
}

describe('explore', () => {
  let found: ExploreCounterexample;

  it('finds the mutant that resends without reconciling, shrunk to one lost reply of the message', async () => {
    const progress: ExploreProgress[] = [];

    const result = await explore({
      scenario: partialRefund,
      agent: zooAgent('no-reconcile')!,
      runs: 200,
      seed: 1,
      maxFaults: 3,
      outDir: dir,
      onProgress: (p) => progress.push(p),
    });

    expect(result.kind).toBe('counterexample');
    found = result as ExploreCounterexample;
    // The smallest plan: the message is sent, its reply lost; resent blindly, it goes twice.
    // (Which ambiguous-reply kind the search meets first depends on the catalog's kinds.)
    expect(found.plan.faults).toEqual([{ kind: 'lost-ack', trigger: { on: 'step', step: 5 } }]);
    const hit = found.trajectory.calls.find((c) => c.fault === 'lost-ack');
    expect(hit?.tool).toBe('send_customer_message');
    expect(found.violations.map((v) => v.invariant)).toContain('no-duplicate-effects');
    expect(found.success).toMatchObject({ required: true, by: 'static' });
    expect(found.path).toMatch(/^\d+(:\d+)*$/);
    expect(found.shrinks).toBeGreaterThanOrEqual(0);
    expect(progress.at(-1)).toMatchObject({ phase: 'shrink', runs: found.runs });
    expect(progress.filter((p) => p.phase === 'search')).toHaveLength(found.runs);
  });

  it('replays the same counterexample from its seed and path, without searching again', async () => {
    const progress: ExploreProgress[] = [];

    const replayed = await explore({
      scenario: partialRefund,
      agent: zooAgent('no-reconcile')!,
      seed: found.seed,
      path: found.path,
      outDir: dir,
      onProgress: (p) => progress.push(p),
    });

    expect(replayed.kind).toBe('counterexample');
    const again = replayed as ExploreCounterexample;
    expect(again.plan).toEqual(found.plan);
    expect(again.violations).toEqual(found.violations);
    // The path leads straight to the counterexample: one run to reach it, then only shrinking.
    expect(progress.filter((p) => p.phase === 'search')).toHaveLength(1);
    expect(again.runs).toBe(1);
  });

  it('saves a regression that fails the mutant and passes the reference', async () => {
    const regression = await regressionFor(partialRefund, found, dir);

    expect(regression).toMatchObject({
      format: 'faultline-regression',
      scenario: 'refunds/partial-refund',
      seed: partialRefund.world.seed,
    });
    expect(regression.faultPlan.expected).toBeUndefined();
    expect(regressionFileName(found)).toBe(`refunds--partial-refund--${found.plan.id}.json`);
    expect(await runRegression(regression, 'no-reconcile')).toBe(false);
    expect(await runRegression(regression, 'reference')).toBe(true);
  });

  it('pins what the reference does where the plan leaves success impossible', async () => {
    const voided = explorePlan([
      {
        kind: 'stale-record',
        trigger: { on: 'step', step: 4 },
        change: 'refund-voided-elsewhere',
        params: { order_id: 'ord_1' },
      },
    ]);
    const result = await explore({
      scenario: fullRefund,
      agent: zooAgent('unverified-finish')!,
      runs: 1,
      seed: 1,
      maxFaults: 0,
      outDir: dir,
    });
    expect(result.kind).toBe('passed'); // no faults, nothing to catch
    const found: ExploreCounterexample = {
      ...result,
      kind: 'counterexample',
      plan: voided,
      path: '0',
      shrinks: 0,
      violations: [],
      success: {
        required: false,
        reason: 'stale-record (refund-voided-elsewhere) changes what the outcome is',
      },
      trajectory: undefined as never,
    };

    const regression = await regressionFor(fullRefund, found, dir);

    expect(regression.faultPlan.expected).toEqual({
      state: 'failed',
      stopReason: 'verification-failed',
      world: { path: 'effects.length', op: 'eq', value: 1 },
    });
    expect(await runRegression(regression, 'unverified-finish')).toBe(false);
    expect(await runRegression(regression, 'reference')).toBe(true);
  });

  it('passes when no plan breaks an invariant', async () => {
    const result = await explore({
      scenario: partialRefund,
      agent: zooAgent('reference')!,
      runs: 25,
      seed: 3,
      outDir: dir,
    });

    expect(result).toMatchObject({ kind: 'passed', runs: 25, seed: 3 });
  });
});

describe('explore without outDir', () => {
  /** The folders an explore made under the system's temporary folder, seen while it runs. */
  function watched(tmp: string, seen: Set<string>): () => void {
    return () => {
      for (const name of readdirSync(tmp)) seen.add(name);
    };
  }

  it('runs in a folder of its own, removed when the call ends; two at once share none', async () => {
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const saved = process.env.TMPDIR;
    // `tmpdir()` reads TMPDIR at each call: the explores' scratch folders land where we look.
    process.env.TMPDIR = tmp;
    const seen = [new Set<string>(), new Set<string>()] as const;
    try {
      const [found, passed] = await Promise.all([
        explore({
          scenario: partialRefund,
          agent: zooAgent('no-reconcile')!,
          runs: 200,
          seed: 1,
          onProgress: watched(tmp, seen[0]),
        }),
        explore({
          scenario: partialRefund,
          agent: zooAgent('reference')!,
          runs: 10,
          seed: 3,
          onProgress: watched(tmp, seen[1]),
        }),
      ]);

      expect(found.kind).toBe('counterexample');
      expect(passed.kind).toBe('passed');
      // Each explore saw its own folder, and no fixed shared one.
      const all = new Set([...seen[0], ...seen[1]]);
      expect(all.size).toBe(2);
      for (const name of all) expect(name).toMatch(/^faultline-explore-\w{6}$/);
      // Nothing in the result is a path into it: the counterexample is its plan, seed and path.
      for (const name of all) expect(JSON.stringify(found)).not.toContain(name);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('leaves a folder the caller gave where it is', async () => {
    const out = mkdtempSync(join(dir, 'given-'));
    await explore({
      scenario: partialRefund,
      agent: zooAgent('reference')!,
      runs: 2,
      seed: 3,
      outDir: out,
    });
    expect(existsSync(out)).toBe(true);
  });

  it('judgePlan without outDir leaves no folder behind either', async () => {
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const judged = await judgePlan(
        { scenario: partialRefund, agent: zooAgent('reference')! },
        explorePlan([]),
      );
      expect(judged.violations).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
