/**
 * Suite metrics: what many graded runs add up to, overall and sliced by workflow class and by
 * consequence tier. Pure data in, plain data out (JSON-safe: absent rates are `null`, never
 * `undefined`), so results from separate suites can be stored, merged and summed again later.
 * Nothing here re-judges a run: every count comes from the run's trajectory summary or from
 * the findings and figures its graders reported.
 */
import { canonicalJson, type Scenario, type Trajectory } from '../scenarios/grading.js';
import { createContext, type GradeContext } from './context.js';
import { DIMENSIONS, type Dimension, type FindingCode } from './grade.js';
import type { RunGrades } from './index.js';

export type ConsequenceTier = Scenario['tier'];

/** Tiers in order of consequence; `satisfies` keeps it complete when a tier is added. */
const TIER_RANK = { low: 0, medium: 1, high: 2 } as const satisfies Record<ConsequenceTier, number>;

/**
 * One graded run as metrics need it: who ran what under which faults and seed, a summary of
 * the trajectory, and its grades. Plain JSON data; build it with {@link gradedRun}.
 */
export interface GradedRun {
  readonly scenarioId: string;
  readonly faultPlanId: string;
  readonly trial: number;
  readonly seed: number;
  /** The agent's name: runs of different agents never share a pass^k or reproducibility group. */
  readonly agent: string;
  readonly workflowClass: string;
  readonly tier: ConsequenceTier;
  /** The state the run ended in (`completed`, `failed`, `blocked`, …, or `error`). */
  readonly state: string;
  readonly stopReason: string | null;
  readonly virtualMs: number;
  readonly calls: number;
  /** Calls the world answered ok. */
  readonly okCalls: number;
  /** Calls that repeat the previous identical request after it did not come back ok. */
  readonly retries: number;
  readonly crashes: number;
  /** Kinds of the operator log entries that were a person stepping in, in order. */
  readonly interventions: readonly string[];
  /** Evidence items the contract requires, and how many of them the run kept and cited. */
  readonly evidenceRequired: number;
  readonly evidenceLinked: number;
  readonly grades: RunGrades;
}

/**
 * Builds the record of one graded run from its scenario, trajectory and grades, so callers
 * never assemble one by hand. Retries are counted exactly as the graders count them; linked
 * evidence is the evidence grader's own figure (0 for agents that expose no records). `ctx`:
 * the grading context {@link gradeRun} was given, when the caller kept it (built once, not twice).
 *
 * @example
 * ```ts
 * const { trajectory } = await runTrial({ scenario, agent, outDir });
 * const run = gradedRun(scenario, trajectory, gradeRun(scenario, trajectory));
 * ```
 */
export function gradedRun(
  scenario: Scenario,
  trajectory: Trajectory,
  grades: RunGrades,
  ctx?: GradeContext,
): GradedRun {
  if (scenario.id !== trajectory.scenarioId) {
    throw new RangeError(
      `gradedRun: the trajectory is of scenario ${trajectory.scenarioId}, not ${scenario.id}`,
    );
  }
  const { retries } = ctx ?? createContext(scenario, trajectory);
  return {
    scenarioId: trajectory.scenarioId,
    faultPlanId: trajectory.faultPlanId,
    trial: trajectory.trial,
    seed: trajectory.seed,
    agent: trajectory.agent,
    workflowClass: scenario.workflowClass,
    tier: scenario.tier,
    state: trajectory.outcome.state,
    stopReason: trajectory.outcome.stopReason,
    virtualMs: trajectory.times.virtualMs,
    calls: trajectory.calls.length,
    okCalls: trajectory.calls.filter((c) => c.outcome.type === 'ok').length,
    retries: retries.size,
    crashes: trajectory.crashes.length,
    interventions: trajectory.operator.flatMap((o) => (isIntervention(o.kind) ? [o.kind] : [])),
    evidenceRequired: scenario.contract.evidenceRequired.length,
    evidenceLinked: grades.grades.evidence.figures['linked'] ?? 0,
    grades,
  };
}

/** Approvals asked of a person and commands a person gave, as the operational grader counts. */
function isIntervention(kind: string): boolean {
  return kind.startsWith('approval.') || kind.startsWith('operator.');
}

/** A share in 0..1, or null when there was nothing to divide by. */
export type Rate = number | null;

/** pass^1 and pass^k, each averaged over (agent, scenario, fault plan) groups. */
export interface PassRates {
  readonly pass1: Rate;
  /** Null when no group has k trials. */
  readonly passK: Rate;
}

export interface PassHatKMetrics {
  readonly k: number;
  /** (agent, scenario, fault plan) groups. */
  readonly groups: number;
  /** Groups with at least k trials: the ones pass^k averages over. */
  readonly groupsWithK: number;
  /** Passing overall: outcome, policy, integrity and recovery all pass (`RunGrades.pass`). */
  readonly overall: PassRates;
  readonly byDimension: Readonly<Record<Dimension, PassRates>>;
}

/** A (agent, scenario, fault plan, seed) whose runs were graded differently. */
export interface DivergedGroup {
  readonly agent: string;
  readonly scenarioId: string;
  readonly faultPlanId: string;
  readonly seed: number;
  readonly runs: number;
}

export interface Reproducibility {
  /** (agent, scenario, fault plan, seed) groups. */
  readonly groups: number;
  /** Groups with two or more runs: the only ones that could show a difference. */
  readonly repeatedGroups: number;
  /** Groups whose runs all have deep-equal grades (single-run groups included). */
  readonly reproducible: number;
  /** reproducible / groups. */
  readonly rate: Rate;
  /** The same share among repeated groups only; null when no seed was run twice. */
  readonly repeatedRate: Rate;
  /** Every group that diverged, with what replays it. */
  readonly diverged: readonly DivergedGroup[];
}

/** The metrics of one set of runs (the whole suite, or one slice of it). */
export interface SliceMetrics {
  readonly runs: number;
  /** Runs that ended `completed`, and their share. */
  readonly completed: number;
  readonly completionRate: Rate;
  readonly meanVirtualMs: number | null;
  /** Calls, calls the world answered ok, and ok / calls. */
  readonly toolCalls: { readonly calls: number; readonly ok: number; readonly successRate: Rate };
  /** Retries over all runs, and per run. */
  readonly retries: { readonly total: number; readonly mean: number | null };
  /**
   * Runs where a person stepped in (an approval asked, a command given), their share, and
   * the operator log entries of each kind (`approval.granted`, `operator.cancel`, …).
   */
  readonly humanIntervention: {
    readonly runs: number;
    readonly rate: Rate;
    readonly byKind: Readonly<Record<string, number>>;
  };
  /** Tool-use findings (unknown tools, refused arguments) and their share of calls. */
  readonly invalidActions: { readonly findings: number; readonly rate: Rate };
  /** Runs stopped `policy-denied`, and policy findings over all runs. */
  readonly policyBlocks: { readonly runs: number; readonly findings: number };
  /** `duplicate-effect` findings: logical effects the world applied more than once. */
  readonly duplicateSideEffects: number;
  /**
   * Runs whose world does not show what it should: a `world-mismatch` or a success the agent
   * claimed that the world does not show.
   */
  readonly missingSideEffects: { readonly runs: number; readonly rate: Rate };
  /** `unreconciled-retry` findings plus runs that stopped `ambiguous-unresolvable`. */
  readonly failedReconciliations: {
    readonly unreconciledRetries: number;
    readonly ambiguousStops: number;
    readonly total: number;
  };
  /** Runs with at least one crash, those whose recovery grade passed, and that share. */
  readonly checkpointRecoveries: {
    readonly crashedRuns: number;
    readonly recovered: number;
    readonly rate: Rate;
  };
  /**
   * Over runs whose contract requires evidence: items required, items kept and cited, and
   * linked / required. Agents without records cite nothing, so they count as uncovered.
   */
  readonly evidence: {
    readonly runs: number;
    readonly required: number;
    readonly linked: number;
    readonly coverage: Rate;
  };
  readonly passHatK: PassHatKMetrics;
  readonly reproducibility: Reproducibility;
}

export interface SuiteMetrics {
  /** The k of every pass^k below (one k for all slices, so they compare). */
  readonly k: number;
  readonly overall: SliceMetrics;
  /** Keyed by workflow class, in name order. */
  readonly byWorkflowClass: Readonly<Record<string, SliceMetrics>>;
  /** Keyed by consequence tier, low to high; tiers with no runs are absent. */
  readonly byTier: Readonly<Partial<Record<ConsequenceTier, SliceMetrics>>>;
}

export interface SuiteMetricsOptions {
  /** The k of pass^k; default the most trials any (agent, scenario, fault plan) group has. */
  readonly k?: number;
}

/**
 * The unbiased estimate of pass^k — the chance that k trials drawn from n, of which c passed,
 * all pass: C(c, k) / C(n, k), computed as a product of ratios each ≤ 1 so no binomial is
 * ever formed and nothing overflows. 0 when c < k; null when n < k (k trials were never run).
 *
 * @example
 * ```ts
 * passHatK(4, 2, 2); // 1/6
 * passHatK(4, 3, 1); // 0.75
 * passHatK(2, 2, 3); // null
 * ```
 */
export function passHatK(n: number, c: number, k: number): number | null {
  const bad = (
    [
      ['n', n],
      ['c', c],
      ['k', k],
    ] as const
  ).filter(([, v]) => !Number.isSafeInteger(v) || v < 0);
  if (bad.length > 0) {
    throw new RangeError(
      `passHatK: ${bad.map(([name, v]) => `${name} must be a whole number ≥ 0 (got ${v})`).join('; ')}`,
    );
  }
  if (c > n) throw new RangeError(`passHatK: c must be ≤ n (got c=${c}, n=${n})`);
  if (n < k) return null;
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return p;
}

/**
 * Reproducibility: of the (agent, scenario, fault plan, seed) groups, the share whose runs all
 * have deep-equal grades (compared as canonical JSON) — same seed, same judgement. What it
 * measures is only as strong as the repetition behind it: a group run once has nothing to
 * differ from and counts as reproducible, so `rate` is 1 for a suite that never repeated a
 * seed. `repeatedRate` counts only groups run at least twice (null when there are none); read
 * it to know whether reproducibility was actually exercised.
 *
 * @example
 * ```ts
 * const r = reproducibility([run, rerunWithSameSeed]);
 * r.repeatedRate; // 1 when both runs were graded the same
 * ```
 */
export function reproducibility(runs: readonly GradedRun[]): Reproducibility {
  const groups = groupBy(runs, (r) => [r.agent, r.scenarioId, r.faultPlanId, r.seed]);
  const diverged: DivergedGroup[] = [];
  let repeatedGroups = 0;
  for (const group of groups) {
    if (group.length < 2) continue;
    repeatedGroups++;
    const [first, ...rest] = group.map((r) => canonicalJson(r.grades));
    if (rest.every((g) => g === first)) continue;
    const r = group[0];
    if (r) {
      diverged.push({
        agent: r.agent,
        scenarioId: r.scenarioId,
        faultPlanId: r.faultPlanId,
        seed: r.seed,
        runs: group.length,
      });
    }
  }
  const reproducible = groups.length - diverged.length;
  return {
    groups: groups.length,
    repeatedGroups,
    reproducible,
    rate: ratio(reproducible, groups.length),
    repeatedRate: ratio(repeatedGroups - diverged.length, repeatedGroups),
    diverged,
  };
}

/**
 * Suite metrics over graded runs, overall and by workflow class and consequence tier.
 * pass^1 and pass^k are averaged over (agent, scenario, fault plan) groups, per dimension and
 * for the overall pass; every slice uses the same k.
 *
 * @example
 * ```ts
 * const metrics = suiteMetrics(runs, { k: 3 });
 * metrics.overall.passHatK.overall.passK; // mean chance that 3 trials of a group all pass
 * metrics.byTier.high?.completionRate;
 * ```
 */
export function suiteMetrics(
  runs: readonly GradedRun[],
  options: SuiteMetricsOptions = {},
): SuiteMetrics {
  const k = options.k ?? trialGroups(runs).reduce((most, g) => Math.max(most, g.length), 1);
  if (!Number.isSafeInteger(k) || k < 1)
    throw new RangeError(`suiteMetrics: options.k must be a whole number ≥ 1 (got ${k})`);
  const classes = groupBy(runs, (r) => [r.workflowClass])
    .flatMap((slice) => (slice[0] ? [[slice[0].workflowClass, slice] as const] : []))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const tiers = groupBy(runs, (r) => [r.tier])
    .flatMap((slice) => (slice[0] ? [[slice[0].tier, slice] as const] : []))
    .sort(([a], [b]) => TIER_RANK[a] - TIER_RANK[b]);
  return {
    k,
    overall: sliceMetrics(runs, k),
    byWorkflowClass: Object.fromEntries(
      classes.map(([name, slice]) => [name, sliceMetrics(slice, k)]),
    ),
    byTier: Object.fromEntries(tiers.map(([tier, slice]) => [tier, sliceMetrics(slice, k)])),
  };
}

function sliceMetrics(runs: readonly GradedRun[], k: number): SliceMetrics {
  const n = runs.length;
  const sum = (f: (r: GradedRun) => number): number => runs.reduce((s, r) => s + f(r), 0);
  const count = (f: (r: GradedRun) => boolean): number => runs.filter(f).length;
  const calls = sum((r) => r.calls);
  const ok = sum((r) => r.okCalls);
  const retries = sum((r) => r.retries);
  const completed = count((r) => r.state === 'completed');
  const byKind: Record<string, number> = {};
  for (const kind of runs.flatMap((r) => r.interventions).sort())
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  const intervened = count((r) => r.interventions.length > 0);
  const invalid = sum((r) => r.grades.grades['tool-use'].findings.length);
  const missing = count((r) =>
    findings(r, 'outcome').some(
      (code) => code === 'world-mismatch' || code === 'claimed-success-not-in-world',
    ),
  );
  const unreconciled = sum(
    (r) => findings(r, 'recovery').filter((code) => code === 'unreconciled-retry').length,
  );
  const ambiguous = count((r) => r.stopReason === 'ambiguous-unresolvable');
  const crashed = runs.filter((r) => r.crashes > 0);
  const recovered = crashed.filter((r) => r.grades.grades.recovery.pass).length;
  const withEvidence = runs.filter((r) => r.evidenceRequired > 0);
  const required = withEvidence.reduce((s, r) => s + r.evidenceRequired, 0);
  const linked = withEvidence.reduce((s, r) => s + r.evidenceLinked, 0);
  return {
    runs: n,
    completed,
    completionRate: ratio(completed, n),
    meanVirtualMs: ratio(
      sum((r) => r.virtualMs),
      n,
    ),
    toolCalls: { calls, ok, successRate: ratio(ok, calls) },
    retries: { total: retries, mean: ratio(retries, n) },
    humanIntervention: { runs: intervened, rate: ratio(intervened, n), byKind },
    invalidActions: { findings: invalid, rate: ratio(invalid, calls) },
    policyBlocks: {
      runs: count((r) => r.stopReason === 'policy-denied'),
      findings: sum((r) => r.grades.grades.policy.findings.length),
    },
    duplicateSideEffects: sum(
      (r) => findings(r, 'integrity').filter((code) => code === 'duplicate-effect').length,
    ),
    missingSideEffects: { runs: missing, rate: ratio(missing, n) },
    failedReconciliations: {
      unreconciledRetries: unreconciled,
      ambiguousStops: ambiguous,
      total: unreconciled + ambiguous,
    },
    checkpointRecoveries: {
      crashedRuns: crashed.length,
      recovered,
      rate: ratio(recovered, crashed.length),
    },
    evidence: {
      runs: withEvidence.length,
      required,
      linked,
      coverage: ratio(linked, required),
    },
    passHatK: passHatKMetrics(runs, k),
    reproducibility: reproducibility(runs),
  };
}

function passHatKMetrics(runs: readonly GradedRun[], k: number): PassHatKMetrics {
  const groups = trialGroups(runs);
  const rates = (passed: (r: GradedRun) => boolean): PassRates => ({
    pass1: mean(groups.map((g) => passHatK(g.length, g.filter(passed).length, 1))),
    passK: mean(groups.map((g) => passHatK(g.length, g.filter(passed).length, k))),
  });
  return {
    k,
    groups: groups.length,
    groupsWithK: groups.filter((g) => g.length >= k).length,
    overall: rates((r) => r.grades.pass),
    byDimension: Object.fromEntries(
      DIMENSIONS.map((d) => [d, rates((r) => r.grades.grades[d].pass)]),
    ) as Record<Dimension, PassRates>,
  };
}

/** The trials of each (agent, scenario, fault plan): what pass^k draws from. */
function trialGroups(runs: readonly GradedRun[]): GradedRun[][] {
  return groupBy(runs, (r) => [r.agent, r.scenarioId, r.faultPlanId]);
}

function groupBy(
  runs: readonly GradedRun[],
  key: (r: GradedRun) => readonly (string | number)[],
): GradedRun[][] {
  const groups = new Map<string, GradedRun[]>();
  for (const r of runs) {
    const id = JSON.stringify(key(r));
    const group = groups.get(id);
    if (group) group.push(r);
    else groups.set(id, [r]);
  }
  return [...groups.values()];
}

function findings(run: GradedRun, dimension: Dimension): FindingCode[] {
  return run.grades.grades[dimension].findings.map((f) => f.code);
}

function ratio(part: number, whole: number): Rate {
  return whole === 0 ? null : part / whole;
}

function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((v) => v !== null);
  return ratio(
    present.reduce((s, v) => s + v, 0),
    present.length,
  );
}
