import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../faults/catalog.js';
import {
  CORE_DIMENSIONS,
  FINDING_CODES,
  finding,
  gradeRun,
  type FindingCode,
} from '../../graders/index.js';
import {
  gradedRun,
  passHatK,
  reproducibility,
  suiteMetrics,
  type GradedRun,
  type SliceMetrics,
} from '../../graders/metrics.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { runTrial } from '../../scenarios/engine.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { plan, variant } from '../support/trial-harness.js';

let root = '';
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'faultline-metrics-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function scenario(id: string): Scenario {
  const found = BUILT_IN_SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(`no built-in scenario ${id}`);
  return found;
}

function faultPlan(s: Scenario, id: string): FaultPlan {
  const found = s.faultPlans.find((p) => p.id === id);
  if (!found) throw new Error(`${s.id} has no fault plan ${id}`);
  return found;
}

/** One real trial of `s` by a zoo agent, graded, each with its own store directory. */
async function graded(
  s: Scenario,
  agent: 'reference' | 'no-reconcile',
  options: { faultPlan?: FaultPlan; trial?: number; seed?: number } = {},
): Promise<GradedRun> {
  const entry = zooAgent(agent);
  if (!entry) throw new Error(`no zoo agent ${agent}`);
  const { trajectory } = await runTrial({
    scenario: s,
    agent: () => entry.create(),
    outDir: mkdtempSync(join(root, 'run-')),
    ...options,
  });
  return gradedRun(s, trajectory, gradeRun(s, trajectory));
}

/** The run with one more finding of `code`, its dimension failed and the overall pass redone. */
function withFinding(run: GradedRun, code: FindingCode): GradedRun {
  const dimension = FINDING_CODES[code].dimension;
  const before = run.grades.grades[dimension];
  const grades = {
    ...run.grades.grades,
    [dimension]: {
      ...before,
      pass: false,
      findings: [...before.findings, finding(code, 'doctored', [{ kind: 'outcome' }])],
    },
  };
  return { ...run, grades: { grades, pass: CORE_DIMENSIONS.every((d) => grades[d].pass) } };
}

/** C(n, k) exactly, for checking the product form against. */
function binomial(n: number, k: number): bigint {
  let r = 1n;
  for (let i = 0; i < k; i++) r = (r * BigInt(n - i)) / BigInt(i + 1);
  return r;
}

describe('passHatK', () => {
  it('gives the known values', () => {
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 15);
    expect(passHatK(4, 1, 2)).toBe(0);
    expect(passHatK(4, 0, 1)).toBe(0);
    expect(passHatK(5, 3, 1)).toBeCloseTo(0.6, 15);
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(3, 3, 5)).toBeNull();
    expect(passHatK(0, 0, 1)).toBeNull();
  });

  it('does not overflow where the binomials would', () => {
    // C(1999, 1000) / C(2000, 1000) = (2000 - 1000) / 2000; both binomials are far past 1e308.
    expect(passHatK(2000, 1999, 1000)).toBeCloseTo(0.5, 12);
  });

  it('is C(c,k)/C(n,k): c/n at k=1, never rising with k, null only when n < k', () => {
    const cases = fc
      .integer({ min: 0, max: 80 })
      .chain((n) =>
        fc.tuple(
          fc.constant(n),
          fc.integer({ min: 0, max: n }),
          fc.integer({ min: 0, max: n + 2 }),
        ),
      );
    fc.assert(
      fc.property(cases, ([n, c, k]) => {
        const p = passHatK(n, c, k);
        if (n < k) {
          expect(p).toBeNull();
          return;
        }
        const exact = Number((binomial(c, k) * 10n ** 18n) / binomial(n, k)) / 1e18;
        expect(p).toBeCloseTo(exact, 12);
        if (n > 0) expect(passHatK(n, c, 1)).toBeCloseTo(c / n, 15);
        const next = passHatK(n, c, k + 1);
        if (next !== null) expect(next).toBeLessThanOrEqual(p ?? 0);
      }),
    );
  });

  it('refuses counts that cannot be, naming what is wrong', () => {
    expect(() => passHatK(2, 3, 1)).toThrow(/c must be ≤ n \(got c=3, n=2\)/);
    expect(() => passHatK(2, 1, -1)).toThrow(/k must be a whole number ≥ 0 \(got -1\)/);
    expect(() => passHatK(2.5, 1, 1)).toThrow(RangeError);
  });
});

describe('suite metrics over real runs', () => {
  const partial = () => scenario('refunds/partial-refund');
  // The mailer honours no idempotency keys, so a lost acknowledgement there must be reconciled.
  const mailerAckLost = plan('mailer-ack-lost', {
    kind: 'lost-ack',
    trigger: { on: 'call', tool: 'send_customer_message', nth: 1 },
  });
  let runs: GradedRun[] = [];

  beforeAll(async () => {
    const billing = variant(partial(), 'test/billing-partial', { workflowClass: 'billing' });
    runs = [
      await graded(partial(), 'reference', { trial: 0 }),
      await graded(partial(), 'reference', { trial: 1 }),
      await graded(partial(), 'reference', { trial: 2 }),
      await graded(partial(), 'reference', {
        faultPlan: faultPlan(partial(), 'crash-after-apply'),
      }),
      await graded(partial(), 'no-reconcile', { faultPlan: mailerAckLost, trial: 0 }),
      await graded(partial(), 'no-reconcile', { faultPlan: mailerAckLost, trial: 1 }),
      await graded(scenario('refunds/supervised-refund'), 'reference'),
      await graded(scenario('refunds/approval-denied'), 'reference'),
      await graded(scenario('refunds/full-refund'), 'reference'),
      await graded(billing, 'reference'),
    ];
  });

  it('records each run as plain JSON data', () => {
    const run = runs[0]!;
    expect(run).toMatchObject({
      scenarioId: 'refunds/partial-refund',
      faultPlanId: 'none',
      trial: 0,
      agent: 'reference',
      workflowClass: 'refund',
      tier: 'medium',
      state: 'completed',
    });
    expect(JSON.parse(JSON.stringify(runs))).toStrictEqual(runs);
  });

  it('counts what the runs did, overall', () => {
    const { overall } = suiteMetrics(runs);
    expect(overall.runs).toBe(10);
    expect(overall.completed).toBe(9); // approval-denied stops as it should
    expect(overall.toolCalls.successRate).toBeGreaterThan(0);
    expect(overall.toolCalls.successRate).toBeLessThan(1); // the lost acknowledgements
    // The mutant resent the email without asking: twice sent, claimed, unreconciled.
    expect(overall.duplicateSideEffects).toBe(2);
    expect(overall.missingSideEffects).toEqual({ runs: 2, rate: 0.2 });
    expect(overall.failedReconciliations).toEqual({
      unreconciledRetries: 2,
      ambiguousStops: 0,
      total: 2,
    });
    expect(overall.checkpointRecoveries).toEqual({ crashedRuns: 1, recovered: 1, rate: 1 });
    expect(overall.humanIntervention).toEqual({
      runs: 3,
      rate: 0.3,
      byKind: { 'approval.denied': 1, 'approval.granted': 3 },
    });
    expect(overall.evidence).toEqual({ runs: 1, required: 1, linked: 1, coverage: 1 });
    expect(overall.invalidActions).toEqual({ findings: 0, rate: 0 });
    expect(overall.policyBlocks).toEqual({ runs: 0, findings: 0 });
  });

  it('slices by consequence tier, low to high', () => {
    const { overall, byTier } = suiteMetrics(runs);
    expect(Object.keys(byTier)).toEqual(['low', 'medium', 'high']);
    expect(byTier.low?.runs).toBe(1);
    expect(byTier.medium?.runs).toBe(7);
    expect(byTier.high?.runs).toBe(2);
    expect(byTier.low?.humanIntervention.byKind).toEqual({ 'approval.granted': 2 });
    expect(byTier.high?.completionRate).toBe(0.5);
    expect(byTier.medium?.completionRate).toBe(1);
    expect(byTier.medium?.duplicateSideEffects).toBe(overall.duplicateSideEffects);
    expect(byTier.low?.meanVirtualMs).toBeGreaterThan(0); // the approvals take a person's time
  });

  it('slices by workflow class, in name order', () => {
    const { byWorkflowClass } = suiteMetrics(runs);
    expect(Object.keys(byWorkflowClass)).toEqual(['billing', 'refund']);
    expect(byWorkflowClass['billing']?.runs).toBe(1);
    expect(byWorkflowClass['billing']?.passHatK.overall.pass1).toBe(1);
    expect(byWorkflowClass['refund']?.runs).toBe(9);
    expect(byWorkflowClass['refund']?.missingSideEffects.runs).toBe(2);
  });

  it('averages pass^1 and pass^k over (agent, scenario, fault plan) groups', () => {
    const m = suiteMetrics(runs);
    // Seven groups; only the mutant's fails; the widest group has three trials.
    expect(m.k).toBe(3);
    expect(m.overall.passHatK).toMatchObject({ k: 3, groups: 7, groupsWithK: 1 });
    expect(m.overall.passHatK.overall).toEqual({ pass1: 6 / 7, passK: 1 });
    expect(m.overall.passHatK.byDimension.integrity.pass1).toBeCloseTo(6 / 7, 15);
    expect(m.overall.passHatK.byDimension['tool-use']).toEqual({ pass1: 1, passK: 1 });

    const two = suiteMetrics(runs, { k: 2 });
    expect(two.overall.passHatK.groupsWithK).toBe(2);
    expect(two.overall.passHatK.overall.passK).toBe(0.5); // 3 of 3 → 1; 0 of 2 → 0
    expect(two.byTier.low?.passHatK.overall).toEqual({ pass1: 1, passK: null });
  });

  it('counts a seed run twice and graded the same as reproducible', async () => {
    const again = await graded(partial(), 'reference', { trial: 0 });
    expect(again.seed).toBe(runs[0]!.seed);
    const r = reproducibility([runs[0]!, again]);
    expect(r).toEqual({
      groups: 1,
      repeatedGroups: 1,
      reproducible: 1,
      rate: 1,
      repeatedRate: 1,
      diverged: [],
    });
    expect(suiteMetrics([...runs, again]).overall.reproducibility.repeatedRate).toBe(1);
  });

  it('flags a seed whose grades differ, with what replays it', () => {
    const first = runs[0]!;
    const doctored = withFinding(first, 'stale-write');
    const r = reproducibility([...runs, doctored]);
    expect(r.groups).toBe(10);
    expect(r.repeatedGroups).toBe(1);
    expect(r.rate).toBe(0.9);
    expect(r.repeatedRate).toBe(0);
    expect(r.diverged).toEqual([
      {
        agent: 'reference',
        scenarioId: 'refunds/partial-refund',
        faultPlanId: 'none',
        seed: first.seed,
        runs: 2,
      },
    ]);
  });

  it('says when no seed was repeated, though every group counts as reproducible', () => {
    const r = reproducibility(runs);
    expect(r).toMatchObject({ groups: 10, repeatedGroups: 0, rate: 1, repeatedRate: null });
  });

  it('gives the same metrics for runs stored as JSON and read back, as plain data', () => {
    const m = suiteMetrics(runs);
    const stored = JSON.parse(JSON.stringify(runs)) as GradedRun[];
    expect(suiteMetrics(stored)).toStrictEqual(m);
    expect(JSON.parse(JSON.stringify(m))).toStrictEqual(m);
  });

  it('refuses a trajectory of another scenario', async () => {
    const s = scenario('refunds/full-refund');
    const { trajectory } = await runTrial({
      scenario: s,
      agent: () => zooAgent('reference')!.create(),
      outDir: mkdtempSync(join(root, 'run-')),
    });
    expect(() => gradedRun(partial(), trajectory, gradeRun(s, trajectory))).toThrow(
      /trajectory is of scenario refunds\/full-refund, not refunds\/partial-refund/,
    );
  });
});

describe('every metric can move', () => {
  let baseline: GradedRun[] = [];
  beforeAll(async () => {
    // full-refund: evidence required, an approval per run. Trial 0 twice, for reproducibility.
    const s = scenario('refunds/full-refund');
    baseline = [
      await graded(s, 'reference', { trial: 0 }),
      await graded(s, 'reference', { trial: 1 }),
      await graded(s, 'reference', { trial: 2 }),
      await graded(s, 'reference', { trial: 0 }),
    ];
  });

  const first =
    (change: (run: GradedRun) => GradedRun) =>
    ([run, ...rest]: GradedRun[]): GradedRun[] =>
      run ? [change(run), ...rest] : rest;

  const MOVES: [string, (runs: GradedRun[]) => GradedRun[], (keyof SliceMetrics)[]][] = [
    ['another run', (runs) => [...runs, ...runs.slice(1, 2)], ['runs']],
    [
      'a run that failed',
      first((r) => ({ ...r, state: 'failed', stopReason: 'verification-failed' })),
      ['completed', 'completionRate'],
    ],
    ['a slower run', first((r) => ({ ...r, virtualMs: r.virtualMs + 60_000 })), ['meanVirtualMs']],
    ['a failed call', first((r) => ({ ...r, okCalls: r.okCalls - 1 })), ['toolCalls']],
    ['two retries', first((r) => ({ ...r, retries: r.retries + 2 })), ['retries']],
    [
      'a pause and resume',
      first((r) => ({ ...r, interventions: [...r.interventions, 'operator.pause'] })),
      ['humanIntervention'],
    ],
    ['an unknown tool', first((r) => withFinding(r, 'unknown-tool')), ['invalidActions']],
    [
      'a policy-denied stop',
      first((r) => ({ ...r, state: 'blocked', stopReason: 'policy-denied' })),
      ['policyBlocks'],
    ],
    ['a missing approval', first((r) => withFinding(r, 'approval-missing')), ['policyBlocks']],
    [
      'a duplicate effect',
      first((r) => withFinding(r, 'duplicate-effect')),
      ['duplicateSideEffects'],
    ],
    [
      'a success the world does not show',
      first((r) => withFinding(r, 'claimed-success-not-in-world')),
      ['missingSideEffects'],
    ],
    [
      'a world that does not end as expected',
      first((r) => withFinding(r, 'world-mismatch')),
      ['missingSideEffects'],
    ],
    [
      'an unreconciled retry',
      first((r) => withFinding(r, 'unreconciled-retry')),
      ['failedReconciliations'],
    ],
    [
      'an ambiguous stop',
      first((r) => ({ ...r, state: 'failed', stopReason: 'ambiguous-unresolvable' })),
      ['failedReconciliations'],
    ],
    ['a crash', first((r) => ({ ...r, crashes: 1 })), ['checkpointRecoveries']],
    ['uncited evidence', first((r) => ({ ...r, evidenceLinked: 0 })), ['evidence']],
    ['a redone step', first((r) => withFinding(r, 'confirmed-step-redone')), ['passHatK']],
    [
      'a grade that differs for the same seed',
      first((r) => {
        const g = r.grades.grades;
        return {
          ...r,
          grades: { ...r.grades, grades: { ...g, efficiency: { ...g.efficiency, score: 0.5 } } },
        };
      }),
      ['reproducibility'],
    ],
  ];

  it.each(MOVES)('%s moves its metric', (_name, change, keys) => {
    const before = suiteMetrics(baseline).overall;
    const after = suiteMetrics(change(baseline)).overall;
    for (const key of keys) expect(after[key], key).not.toEqual(before[key]);
  });

  it('counts a crash as recovered only when the recovery grade passed', () => {
    const [run, other] = baseline;
    const crashed = suiteMetrics([
      { ...run!, crashes: 1 },
      withFinding({ ...other!, crashes: 2 }, 'confirmed-step-redone'),
    ]).overall;
    expect(crashed.checkpointRecoveries).toEqual({ crashedRuns: 2, recovered: 1, rate: 0.5 });
  });

  it('leaves no metric unmoved', () => {
    const moved = new Set(MOVES.flatMap(([, , keys]) => keys));
    expect([...moved].sort()).toEqual(Object.keys(suiteMetrics(baseline).overall).sort());
  });

  it('starts from a baseline where nothing is wrong', () => {
    const m = suiteMetrics(baseline).overall;
    expect(m).toMatchObject({
      runs: 4,
      completionRate: 1,
      duplicateSideEffects: 0,
      evidence: { coverage: 1 },
      reproducibility: { repeatedRate: 1 },
      passHatK: { overall: { pass1: 1 } },
    });
  });
});

describe('suiteMetrics input', () => {
  it('reports nothing, as nulls, for no runs', () => {
    const m = suiteMetrics([]);
    expect(m.k).toBe(1);
    expect(m.byWorkflowClass).toEqual({});
    expect(m.byTier).toEqual({});
    expect(m.overall).toMatchObject({
      runs: 0,
      completionRate: null,
      meanVirtualMs: null,
      toolCalls: { successRate: null },
      passHatK: { groups: 0, overall: { pass1: null, passK: null } },
      reproducibility: { groups: 0, rate: null },
    });
  });

  it('refuses a k that is not a whole number ≥ 1', () => {
    expect(() => suiteMetrics([], { k: 0 })).toThrow(
      /options\.k must be a whole number ≥ 1 \(got 0\)/,
    );
    expect(() => suiteMetrics([], { k: 1.5 })).toThrow(RangeError);
  });
});
