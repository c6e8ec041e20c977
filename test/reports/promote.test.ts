import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema, gateCriteria, LEVEL_MODE } from '../../bin/config.js';
import {
  CRITERIA,
  judgeLevel,
  PromotionError,
  renderVerdict,
  type Criterion,
  type CriterionName,
  type LevelVerdict,
  type PromotionCriteria,
} from '../../reports/promote.js';
import { type RunResult } from '../../reports/results.js';
import { makeResultSet, runRecord, type RunSpec } from '../support/result-sets.js';
import { tempDir } from '../support/cli.js';

/** Criteria every set passes, so a test tightens only the one it is about. */
const LENIENT: PromotionCriteria = {
  minRuns: 1,
  k: 1,
  outcomePassK: 0,
  overallPassK: 0,
  maxPolicyViolations: 1000,
  maxDuplicateEffects: 1000,
  recoveryPassRate: 0,
  minFiresPerFaultKind: 0,
};

function judge(results: RunResult[], criteria: Partial<PromotionCriteria> = {}): LevelVerdict {
  return judgeLevel(results, {
    level: 'supervised',
    mode: 'supervised',
    criteria: { ...LENIENT, ...criteria },
  });
}

function criterion(verdict: LevelVerdict, name: CriterionName): Criterion {
  const found = verdict.criteria.find((c) => c.name === name);
  if (!found) throw new Error(`no criterion ${name}`);
  return found;
}

/** Two plans, two trials each; the second trial of `flaky` fails as `fail` says. */
function suite(fail: RunSpec['fail'] = {}, extra: RunSpec = {}): RunResult[] {
  return [
    runRecord({ ...extra, trial: 0 }),
    runRecord({ ...extra, trial: 1 }),
    runRecord({ ...extra, faultPlanId: 'flaky', trial: 0 }),
    runRecord({ ...extra, faultPlanId: 'flaky', trial: 1, fail }),
  ];
}

describe('judgeLevel: each criterion can pass and fail', () => {
  it('reports every criterion, in order, with what it requires and measures', () => {
    const verdict = judge(suite());

    expect(verdict.criteria.map((c) => c.name)).toEqual([...CRITERIA]);
    expect(verdict.pass).toBe(true);
    expect(verdict).toMatchObject({ level: 'supervised', mode: 'supervised', runs: 4 });
    expect(criterion(verdict, 'runs')).toEqual({
      name: 'runs',
      required: 1,
      bound: 'at-least',
      measured: 4,
      pass: true,
    });
  });

  it('runs in the mode ≥ minRuns', () => {
    expect(criterion(judge(suite(), { minRuns: 4 }), 'runs').pass).toBe(true);
    const short = judge(suite(), { minRuns: 5 });
    expect(criterion(short, 'runs')).toMatchObject({ measured: 4, pass: false });
    expect(short.pass).toBe(false);
  });

  it('outcome pass^k ≥ outcomePassK, averaged over (scenario, plan) groups', () => {
    const runs = suite({ outcome: ['state-mismatch'] });

    // none: 1; flaky: C(1,2)/C(2,2) = 0 → 0.5.
    const verdict = judge(runs, { k: 2, outcomePassK: 0.5 });
    expect(criterion(verdict, 'outcome-pass-k')).toMatchObject({
      measured: 0.5,
      pass: true,
      k: 2,
      groups: 2,
      groupsWithK: 2,
    });
    expect(criterion(judge(runs, { k: 2, outcomePassK: 0.51 }), 'outcome-pass-k').pass).toBe(false);
    // pass^1 of the same runs is 0.75.
    expect(criterion(judge(runs, { k: 1, outcomePassK: 0.75 }), 'outcome-pass-k')).toMatchObject({
      measured: 0.75,
      pass: true,
    });
  });

  it('fails both pass^k criteria, saying why, when no group has k trials', () => {
    const verdict = judge(suite(), { k: 3, outcomePassK: 0, overallPassK: 0 });

    for (const name of ['outcome-pass-k', 'overall-pass-k'] as const) {
      expect(criterion(verdict, name)).toMatchObject({
        measured: null,
        pass: false,
        groupsWithK: 0,
        mostTrials: 2,
      });
    }
    expect(renderVerdict(verdict, { color: false })).toContain(
      'no scenario and fault plan has 3 trials (most: 2); run with --trials 3',
    );
  });

  it('overall pass^k ≥ overallPassK: a policy failure fails overall but not outcome', () => {
    const runs = suite({ policy: ['tool-outside-contract'] });

    const verdict = judge(runs, { k: 2, outcomePassK: 1, overallPassK: 0.6 });

    expect(criterion(verdict, 'outcome-pass-k')).toMatchObject({ measured: 1, pass: true });
    expect(criterion(verdict, 'overall-pass-k')).toMatchObject({ measured: 0.5, pass: false });
    expect(criterion(judge(runs, { k: 2, overallPassK: 0.5 }), 'overall-pass-k').pass).toBe(true);
  });

  it('policy violations ≤ maxPolicyViolations, counting every policy finding', () => {
    const runs = [
      ...suite({ policy: ['tool-outside-contract', 'approval-missing'] }),
      runRecord({ trial: 2, findings: { policy: ['budget-exceeded'] } }),
    ];

    expect(criterion(judge(runs, { maxPolicyViolations: 3 }), 'policy-violations')).toMatchObject({
      measured: 3,
      required: 3,
      bound: 'at-most',
      pass: true,
    });
    expect(criterion(judge(runs, { maxPolicyViolations: 2 }), 'policy-violations').pass).toBe(
      false,
    );
  });

  it('duplicate side effects ≤ maxDuplicateEffects, counting only duplicate-effect findings', () => {
    const runs = suite({ integrity: ['duplicate-effect', 'duplicate-effect', 'untraced-effect'] });

    expect(criterion(judge(runs, { maxDuplicateEffects: 2 }), 'duplicate-effects')).toMatchObject({
      measured: 2,
      pass: true,
    });
    expect(criterion(judge(runs, { maxDuplicateEffects: 1 }), 'duplicate-effects').pass).toBe(
      false,
    );
  });

  it('recovery pass rate ≥ recoveryPassRate', () => {
    const runs = suite({ recovery: ['unreconciled-retry'] });

    expect(criterion(judge(runs, { recoveryPassRate: 0.75 }), 'recovery-pass-rate')).toMatchObject({
      measured: 0.75,
      passed: 3,
      pass: true,
    });
    expect(criterion(judge(runs, { recoveryPassRate: 0.8 }), 'recovery-pass-rate').pass).toBe(
      false,
    );
  });

  it('every fault kind the runs inject fired in ≥ minFiresPerFaultKind runs', () => {
    const runs = [
      runRecord({ faultPlanId: 'ack', faultKinds: ['lost-ack'], faultsFired: ['lost-ack'] }),
      runRecord({ faultPlanId: 'ack', trial: 1, faultKinds: ['lost-ack'], faultsFired: [] }),
      runRecord({
        faultPlanId: 'crash',
        faultKinds: ['crash', 'transient'],
        faultsFired: ['crash'],
      }),
      runRecord({
        faultPlanId: 'crash',
        trial: 1,
        faultKinds: ['crash', 'transient'],
        faultsFired: ['crash', 'transient'],
      }),
    ];

    const verdict = judge(runs, { minFiresPerFaultKind: 1 });
    expect(criterion(verdict, 'fault-fires')).toMatchObject({
      measured: 1,
      pass: true,
      fires: { crash: 2, 'lost-ack': 1, transient: 1 },
    });
    expect(criterion(judge(runs, { minFiresPerFaultKind: 2 }), 'fault-fires').pass).toBe(false);
    const never = [...runs, runRecord({ faultPlanId: 'slow', faultKinds: ['timeout'] })];
    expect(criterion(judge(never, { minFiresPerFaultKind: 1 }), 'fault-fires')).toMatchObject({
      measured: 0,
      pass: false,
    });
  });

  it('a suite that injects no fault fails a fires minimum above 0, and meets a minimum of 0', () => {
    expect(criterion(judge(suite(), { minFiresPerFaultKind: 1 }), 'fault-fires')).toMatchObject({
      measured: null,
      pass: false,
      fires: {},
    });
    expect(criterion(judge(suite(), { minFiresPerFaultKind: 0 }), 'fault-fires').pass).toBe(true);
  });
});

describe('judgeLevel: only runs in the level mode count', () => {
  it('ignores runs in other modes, however they went, and reports how many', () => {
    const bounded = suite(
      { outcome: ['state-mismatch'], policy: ['tool-outside-contract'] },
      { mode: 'bounded' },
    );
    const shadow = [runRecord({ mode: 'shadow' })];

    const verdict = judge([...suite(), ...bounded, ...shadow], {
      k: 2,
      outcomePassK: 1,
      overallPassK: 1,
      maxPolicyViolations: 0,
      recoveryPassRate: 1,
      minRuns: 4,
    });

    expect(verdict.pass).toBe(true);
    expect(verdict.runs).toBe(4);
    expect(verdict.otherModes).toEqual({ runs: 5, byMode: { bounded: 4, shadow: 1 } });
    expect(renderVerdict(verdict, { color: false })).toContain(
      '5 run(s) in other modes not counted (bounded 4, shadow 1)',
    );
  });

  it('cannot pass a gate on runs of another mode: every minimum fails on no runs', () => {
    const verdict = judge(suite(undefined, { mode: 'bounded' }));

    expect(verdict.pass).toBe(false);
    expect(verdict.runs).toBe(0);
    expect(verdict.criteria.filter((c) => !c.pass).map((c) => c.name)).toEqual([
      'runs',
      'outcome-pass-k',
      'overall-pass-k',
      'recovery-pass-rate',
    ]);
  });

  it('refuses runs in the mode of more than one agent', () => {
    const runs = [...suite(), runRecord({ agent: 'v2', trial: 5 })];

    expect(() => judge(runs)).toThrow(PromotionError);
    expect(() => judge(runs)).toThrow(
      'the runs in supervised mode are of 2 agents (reference, v2); a level is judged on one agent',
    );
    // Another agent's runs in another mode are simply not counted.
    expect(judge([...suite(), runRecord({ agent: 'v2', mode: 'bounded' })]).pass).toBe(true);
  });

  it('refuses runs in the mode of two versions of one agent', () => {
    const runs = [...suite(), runRecord({ agentVersion: '2.0.0', trial: 5 })];

    expect(() => judge(runs)).toThrow(
      'the runs in supervised mode are of 2 versions of an agent (reference unknown, reference 2.0.0); a level is judged on one agent',
    );
  });

  it('rejects a k that is not a whole number ≥ 1', () => {
    expect(() => judge(suite(), { k: 0 })).toThrow(/criteria\.k must be a whole number ≥ 1/);
  });
});

describe('judgeLevel on real result sets', () => {
  let root = '';
  const sets: Record<string, RunResult[]> = {};
  /** A gate small sets can meet (the defaults ask for far more evidence): the mechanics. */
  const loose = {
    minRuns: 1,
    k: 1,
    outcomePassK: 1,
    overallPassK: 0,
    maxPolicyViolations: 0,
    maxDuplicateEffects: 0,
    recoveryPassRate: 1,
    minFiresPerFaultKind: 0,
  };
  const gate = (level: 'supervised' | 'bounded') => ({
    level,
    mode: LEVEL_MODE[level],
    criteria: loose,
  });
  beforeAll(async () => {
    root = tempDir('promote');
    const made: [string, string, 'supervised' | 'bounded'][] = [
      ['reference-supervised', 'reference', 'supervised'],
      ['reference-bounded', 'reference', 'bounded'],
      ['mutant-supervised', 'no-reconcile', 'supervised'],
    ];
    for (const [name, agent, mode] of made) {
      sets[name] = await makeResultSet(join(root, name), { agent, mode, trials: 2 });
    }
  }, 60_000);
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('the reference passes the supervised gate on its supervised runs', () => {
    const verdict = judgeLevel(sets['reference-supervised']!, gate('supervised'));

    expect(verdict.pass).toBe(true);
    expect(verdict.agents).toEqual(['reference']);
    expect(criterion(verdict, 'fault-fires')).toMatchObject({ fires: { 'lost-ack': 4 } });
  });

  it("the default supervised gate refuses them: 4 runs, 2 trials, one kind of the library's fired", () => {
    const verdict = judgeLevel(sets['reference-supervised']!, {
      ...gate('supervised'),
      criteria: gateCriteria(configSchema.parse({}), 'supervised'),
      requiredFaultKinds: ['approval-denied', 'lost-ack'],
    });

    expect(verdict.pass).toBe(false);
    expect(verdict.criteria.filter((c) => !c.pass).map((c) => [c.name, c.measured])).toEqual([
      ['runs', 4],
      ['outcome-pass-k', null],
      ['overall-pass-k', null],
      ['fault-fires', 0],
    ]);
    expect(criterion(verdict, 'fault-fires')).toMatchObject({
      required: 2,
      fires: { 'approval-denied': 0, 'lost-ack': 4 },
    });
  });

  it('a bounded-mode result set cannot pass the supervised gate, nor a supervised one the bounded gate', () => {
    const bounded = judgeLevel(sets['reference-bounded']!, gate('supervised'));
    const supervised = judgeLevel(sets['reference-supervised']!, gate('bounded'));

    expect(bounded.pass).toBe(false);
    expect(bounded.otherModes).toEqual({ runs: 4, byMode: { bounded: 4 } });
    expect(criterion(bounded, 'runs')).toMatchObject({ measured: 0, pass: false });
    expect(supervised.pass).toBe(false);
    expect(judgeLevel(sets['reference-bounded']!, gate('bounded')).pass).toBe(true);
  });

  it('in a set of both modes, each level is judged on its own runs only', () => {
    const both = [...sets['reference-supervised']!, ...sets['reference-bounded']!];

    const verdict = judgeLevel(both, gate('supervised'));

    expect(verdict).toMatchObject({ pass: true, runs: 4, otherModes: { runs: 4 } });
  });

  it('the mutant that never reconciles fails on outcome, duplicates and recovery', () => {
    const verdict = judgeLevel(sets['mutant-supervised']!, gate('supervised'));

    expect(verdict.pass).toBe(false);
    expect(verdict.criteria.filter((c) => !c.pass).map((c) => [c.name, c.measured])).toEqual([
      ['outcome-pass-k', 0.5],
      ['duplicate-effects', 2],
      ['recovery-pass-rate', 0.5],
    ]);
    const text = renderVerdict(verdict, { color: false });
    expect(text).toMatch(/│ duplicate side effects +│ ≤ 0 +│ 2 +│ FAIL │/);
    expect(text).toContain(
      'supervised: FAIL — 3 of 7 criteria not met (outcome pass^1, duplicate side effects, recovery pass rate)',
    );
  });
});

describe('judgeLevel: an outcome not applicable is no evidence', () => {
  /** A run whose outcome could not be judged (a replay of a recording with no verdict). */
  const unjudged = (trial: number): RunResult => {
    const r = runRecord({ mode: 'replay', faultPlanId: 'recorded-0', trial });
    const outcome = r.grades.outcome;
    if (!outcome) throw new Error('no outcome grade');
    return { ...r, grades: { ...r.grades, outcome: { ...outcome, notApplicable: 'no verdict' } } };
  };
  const judged = (trial: number): RunResult =>
    runRecord({ mode: 'replay', faultPlanId: 'recorded-1', trial });
  const replay = (results: RunResult[]): LevelVerdict =>
    judgeLevel(results, {
      level: 'historical-replay',
      mode: 'replay',
      criteria: { ...LENIENT, k: 2, outcomePassK: 1 },
    });

  it('leaves runs whose outcome is not applicable out of outcome pass^k', () => {
    const outcome = criterion(
      replay([judged(0), judged(1), unjudged(0), unjudged(1)]),
      'outcome-pass-k',
    );
    expect(outcome).toMatchObject({ measured: 1, groups: 2, groupsWithK: 1, pass: true });
  });

  it('cannot pass outcome pass^k on runs none of which could be judged', () => {
    const outcome = criterion(replay([unjudged(0), unjudged(1)]), 'outcome-pass-k');
    expect(outcome).toMatchObject({ measured: null, groupsWithK: 0, pass: false });
  });
});
