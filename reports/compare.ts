import Table from 'cli-table3';
import { CORE_DIMENSIONS, DIMENSIONS, type Dimension } from '../graders/grade.js';
import { passHatK } from '../graders/metrics.js';
import type { RunResult } from './results.js';
import { versionDifferences, type VersionDifference } from './run-versions.js';

type RunGrade = NonNullable<RunResult['grades'][string]>;

/**
 * A/B comparison of two result sets. Runs are paired by what makes them the same experiment —
 * scenario, fault plan, seed and trial — and never by agent, model, prompt or mode, since
 * comparing two versions of those is the point. Rates, pass^k and the paired test are computed
 * over the pairs only, so every figure compares like with like; runs without a partner are
 * listed, never dropped. B regresses on a core row only when its drop is both larger than the
 * allowed threshold and significant (exact McNemar p ≤ alpha): a small sample's noise never
 * gates, and neither does a real but tolerated drop.
 */

/** A row of the comparison: the overall pass or one dimension. */
export type CompareRow = 'overall' | Dimension;

/** Why two sets cannot be compared. */
export type CompareErrorCode = 'no-shared-runs' | 'ambiguous-run';

/** Two result sets that cannot be compared; the message says which runs and why. */
export class CompareError extends Error {
  override readonly name = 'CompareError';
  constructor(
    readonly code: CompareErrorCode,
    message: string,
    readonly data: { readonly ids: readonly string[] } = { ids: [] },
  ) {
    super(message);
  }
}

/** What pairs two runs: the same scenario under the same fault plan, seed and trial. */
export interface PairKey {
  readonly scenarioId: string;
  readonly faultPlanId: string;
  readonly seed: number;
  readonly trial: number;
}

/** One side's figures for a row, over the paired runs. */
export interface SideFigures {
  /** Pairs whose run on this side passed the row. */
  readonly passed: number;
  /** passed / pairs. */
  readonly rate: number;
  /** pass^k averaged over (scenario, fault plan) groups with at least k pairs; null when none has. */
  readonly passK: number | null;
}

export interface RowComparison {
  readonly row: CompareRow;
  /** The overall pass and the core dimensions decide whether B regressed. */
  readonly core: boolean;
  readonly a: SideFigures;
  readonly b: SideFigures;
  /** b.rate − a.rate. */
  readonly delta: number;
  /** b.passK − a.passK, or null when either is null. */
  readonly deltaK: number | null;
  /** Discordant pairs: A passed and B failed. */
  readonly lost: number;
  /** Discordant pairs: A failed and B passed. */
  readonly gained: number;
  /** Exact McNemar test on the discordant pairs (two-sided); 1 when there are none. */
  readonly pValue: number;
  /** B's pass rate is below A's by more than `maxRegression`. */
  readonly exceedsThreshold: boolean;
  /** `pValue` ≤ `alpha`. */
  readonly significant: boolean;
  /** Whether this row gates, and if not, why not. */
  readonly gate: RowGate;
  /** `gate` is `regressed`: a core row that dropped beyond the threshold, significantly. */
  readonly regressed: boolean;
}

/**
 * A row's verdict: `regressed` (a core row whose drop is larger than the threshold and
 * significant), `not-significant` (larger than the threshold, but p > alpha),
 * `within-threshold` (a drop no larger than allowed), `no-drop` (B is as good or better), or
 * `not-core` (a dimension that never gates).
 */
export type RowGate = 'regressed' | 'not-significant' | 'within-threshold' | 'no-drop' | 'not-core';

/** A pair whose overall verdict changed, with what failed and the command that replays it. */
export interface ChangedPair extends PairKey {
  readonly aId: string;
  readonly bId: string;
  /** The failing side's failing dimensions (B for a regression, A for a fix), with their finding codes. */
  readonly failing: readonly { readonly dimension: Dimension; readonly codes: readonly string[] }[];
  /** The commands that replay the pair's run of A and of B, as their records give them. */
  readonly replay: { readonly a: string; readonly b: string };
  /** Where each side's model replies are on cassette (absent: not recorded), to replay offline. */
  readonly modelCassettes: { readonly a?: ModelCassettes; readonly b?: ModelCassettes };
}

/** The folder of a run's model cassettes, and whether the run recorded to it or replayed it. */
export type ModelCassettes = NonNullable<RunResult['modelCassettes']>;

/** A run the other side has no partner for. */
export interface UnpairedRun extends PairKey {
  readonly id: string;
  readonly pass: boolean;
  readonly replay: string;
}

/** Who a side's runs are of: agents and modes, in first-seen order. */
export interface SideSummary {
  readonly runs: number;
  readonly agents: readonly string[];
  /** Each agent with the version its runs were made with (its own, or its module's hash). */
  readonly agentVersions: readonly { readonly name: string; readonly version: string }[];
  readonly modes: readonly string[];
}

export interface Comparison {
  readonly a: SideSummary;
  readonly b: SideSummary;
  /** The sides were made by different agents, or different versions of one. */
  readonly agentChanged: boolean;
  /**
   * Every aspect of the runs' versions (agent, model, prompt hash, temperature, model seed,
   * contract, policy, mode) on both sides, and whether it changed.
   */
  readonly versions: readonly VersionDifference[];
  readonly pairs: number;
  /** The k of every pass^k. */
  readonly k: number;
  /** (scenario, fault plan) groups of pairs, and those with at least k pairs. */
  readonly groups: number;
  readonly groupsWithK: number;
  readonly maxRegression: number;
  /** The significance level a drop's McNemar p must reach (p ≤ alpha) to gate. */
  readonly alpha: number;
  /** The overall pass first, then each dimension in the graders' order. */
  readonly rows: readonly RowComparison[];
  /** Pairs A passed and B failed (overall), in A's case order. */
  readonly regressions: readonly ChangedPair[];
  /** Pairs A failed and B passed (overall), in A's case order. */
  readonly fixes: readonly ChangedPair[];
  readonly unpaired: { readonly a: readonly UnpairedRun[]; readonly b: readonly UnpairedRun[] };
  /** Some core row regressed: dropped by more than the threshold, significantly. */
  readonly regressed: boolean;
}

/** The significance level of the gate unless told: a 1-in-20 chance of gating on noise. */
export const DEFAULT_ALPHA = 0.05;

export interface CompareOptions {
  /** A fraction in 0..1: how far B's pass rate of a core row may fall below A's (default 0). */
  readonly maxRegression?: number;
  /** In (0, 1]: a drop gates only when its McNemar p ≤ alpha (default {@link DEFAULT_ALPHA}). */
  readonly alpha?: number;
  /** The k of pass^k; default the fewest pairs any (scenario, fault plan) group has. */
  readonly k?: number;
}

/**
 * Compares result set B against baseline A: what differs between their versions, pass rates per
 * dimension and overall with the exact McNemar p-value of each difference, pass^k on both
 * sides, the gate per core row (a drop larger than `maxRegression` and significant at `alpha`),
 * the pairs that regressed or were fixed with the commands that replay both sides, and the runs
 * left unpaired. Throws {@link CompareError} when the sets share no run, or when a set holds two
 * runs of one pair key (it mixes agents or modes).
 *
 * @example
 * ```ts
 * const a = readResults('.faultline/main').results;
 * const b = readResults('.faultline/branch').results;
 * const comparison = compareResults(a, b, { maxRegression: 0.05, alpha: 0.05 });
 * if (comparison.regressed) console.log(comparison.regressions.map((r) => r.replay.b));
 * ```
 */
export function compareResults(
  a: readonly RunResult[],
  b: readonly RunResult[],
  options: CompareOptions = {},
): Comparison {
  const maxRegression = options.maxRegression ?? 0;
  if (!(maxRegression >= 0 && maxRegression <= 1))
    throw new RangeError(`compareResults: maxRegression must be in 0..1 (got ${maxRegression})`);
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha <= 1))
    throw new RangeError(`compareResults: alpha must be in (0, 1] (got ${alpha})`);
  if (options.k !== undefined && (!Number.isSafeInteger(options.k) || options.k < 1))
    throw new RangeError(`compareResults: k must be a whole number ≥ 1 (got ${options.k})`);

  const byKeyA = indexByKey(a, 'A');
  const byKeyB = indexByKey(b, 'B');
  const pairs: [RunResult, RunResult][] = [];
  for (const [key, runA] of byKeyA) {
    const runB = byKeyB.get(key);
    if (runB) pairs.push([runA, runB]);
  }
  if (pairs.length === 0) {
    throw new CompareError(
      'no-shared-runs',
      `A and B share no runs: no scenario, fault plan, seed and trial appear in both (A: ${describeRuns(a)}; B: ${describeRuns(b)})`,
    );
  }

  const groups = new Map<string, [RunResult, RunResult][]>();
  for (const pair of pairs) {
    const id = JSON.stringify([pair[0].scenarioId, pair[0].faultPlanId]);
    const group = groups.get(id);
    if (group) group.push(pair);
    else groups.set(id, [pair]);
  }
  const sizes = [...groups.values()].map((g) => g.length);
  const k = options.k ?? Math.min(...sizes);

  const rows = (['overall', ...DIMENSIONS] as const).map((row): RowComparison => {
    const passed = (run: RunResult): boolean =>
      row === 'overall' ? run.pass : gradeOf(run, row).pass;
    const side = (i: 0 | 1): SideFigures => {
      const count = pairs.filter((p) => passed(p[i])).length;
      return {
        passed: count,
        rate: count / pairs.length,
        passK: meanOrNull(
          [...groups.values()].map((g) =>
            passHatK(g.length, g.filter((p) => passed(p[i])).length, k),
          ),
        ),
      };
    };
    const sideA = side(0);
    const sideB = side(1);
    const lost = pairs.filter(([x, y]) => passed(x) && !passed(y)).length;
    const gained = pairs.filter(([x, y]) => !passed(x) && passed(y)).length;
    const core = row === 'overall' || CORE_DIMENSIONS.includes(row);
    const drop = (sideA.passed - sideB.passed) / pairs.length;
    // Compare with a tolerance, so 9/10 against 10/10 at 0.1 is not beyond the threshold by rounding.
    const exceedsThreshold = drop - maxRegression > 1e-12;
    const pValue = mcnemarExact(lost, gained);
    const significant = pValue <= alpha;
    const gate: RowGate = !core
      ? 'not-core'
      : drop <= 0
        ? 'no-drop'
        : !exceedsThreshold
          ? 'within-threshold'
          : !significant
            ? 'not-significant'
            : 'regressed';
    return {
      row,
      core,
      a: sideA,
      b: sideB,
      delta: sideB.rate - sideA.rate,
      deltaK: sideA.passK === null || sideB.passK === null ? null : sideB.passK - sideA.passK,
      lost,
      gained,
      pValue,
      exceedsThreshold,
      significant,
      gate,
      regressed: gate === 'regressed',
    };
  });

  const changed = ([runA, runB]: [RunResult, RunResult], failing: RunResult): ChangedPair => ({
    ...keyOf(runA),
    aId: runA.id,
    bId: runB.id,
    failing: DIMENSIONS.filter((d) => !gradeOf(failing, d).pass).map((d) => ({
      dimension: d,
      codes: [...new Set(gradeOf(failing, d).findings.map((f) => f.code))],
    })),
    replay: { a: runA.replay, b: runB.replay },
    modelCassettes: {
      ...(runA.modelCassettes ? { a: runA.modelCassettes } : {}),
      ...(runB.modelCassettes ? { b: runB.modelCassettes } : {}),
    },
  });
  const unpaired = (runs: readonly RunResult[], partners: Map<string, RunResult>): UnpairedRun[] =>
    runs
      .filter((r) => !partners.has(pairKey(r)))
      .map((r) => ({ ...keyOf(r), id: r.id, pass: r.pass, replay: r.replay }));

  return {
    a: summarise(a),
    b: summarise(b),
    agentChanged: agentsOf(a) !== agentsOf(b),
    versions: versionDifferences(a, b),
    pairs: pairs.length,
    k,
    groups: groups.size,
    groupsWithK: sizes.filter((n) => n >= k).length,
    maxRegression,
    alpha,
    rows,
    regressions: pairs.filter(([x, y]) => x.pass && !y.pass).map((p) => changed(p, p[1])),
    fixes: pairs.filter(([x, y]) => !x.pass && y.pass).map((p) => changed(p, p[0])),
    unpaired: { a: unpaired(a, byKeyB), b: unpaired(b, byKeyA) },
    regressed: rows.some((r) => r.regressed),
  };
}

/**
 * The exact McNemar test: the two-sided binomial test of the discordant pairs, b (A passed, B
 * failed) against c (A failed, B passed), under the hypothesis that each is equally likely:
 * p = min(1, 2 · Σ_{i ≤ min(b,c)} C(b+c, i) / 2^(b+c)). No binomial coefficient or power of two
 * is ever formed: the largest term is taken in logarithms and the others as ratios of it, each
 * ≤ 1, so nothing overflows and a very small p underflows gracefully to 0.
 *
 * @example
 * ```ts
 * mcnemarExact(0, 5); // 0.0625
 * mcnemarExact(3, 3); // 1
 * ```
 */
export function mcnemarExact(b: number, c: number): number {
  for (const [name, v] of [
    ['b', b],
    ['c', c],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 0)
      throw new RangeError(`mcnemarExact: ${name} must be a whole number ≥ 0 (got ${v})`);
  }
  const n = b + c;
  const m = Math.min(b, c);
  if (2 * m >= n) return 1;
  // Terms C(n, i) grow with i up to n/2, so the one at m is the largest of the sum.
  let logTop = -n * Math.LN2;
  for (let j = 0; j < m; j++) logTop += Math.log((n - j) / (j + 1));
  let ratioSum = 1;
  let ratio = 1;
  for (let i = m; i > 0; i--) {
    ratio *= i / (n - i + 1); // C(n, i−1) / C(n, i)
    ratioSum += ratio;
  }
  return Math.min(1, 2 * Math.exp(logTop) * ratioSum);
}

/** A run's grade of one dimension; the results schema guarantees every dimension is there. */
function gradeOf(run: RunResult, dimension: Dimension): RunGrade {
  const grade = run.grades[dimension];
  if (!grade) throw new RangeError(`run ${run.id} has no ${dimension} grade`);
  return grade;
}

function pairKey(run: PairKey): string {
  return JSON.stringify([run.scenarioId, run.faultPlanId, run.seed, run.trial]);
}

function keyOf(run: RunResult): PairKey {
  return {
    scenarioId: run.scenarioId,
    faultPlanId: run.faultPlanId,
    seed: run.seed,
    trial: run.trial,
  };
}

function indexByKey(runs: readonly RunResult[], side: 'A' | 'B'): Map<string, RunResult> {
  const byKey = new Map<string, RunResult>();
  for (const run of runs) {
    const key = pairKey(run);
    const first = byKey.get(key);
    if (first) {
      throw new CompareError(
        'ambiguous-run',
        `${side} holds two runs of ${run.scenarioId} / ${run.faultPlanId} / seed ${run.seed} / trial ${run.trial} (${first.id} and ${run.id}); compare result sets of one agent in one mode`,
        { ids: [first.id, run.id] },
      );
    }
    byKey.set(key, run);
  }
  return byKey;
}

function summarise(runs: readonly RunResult[]): SideSummary {
  const versions = new Map(runs.map((r) => [`${r.agent}@${r.agentVersion}`, r]));
  return {
    runs: runs.length,
    agents: [...new Set(runs.map((r) => r.agent))],
    agentVersions: [...versions.values()].map((r) => ({ name: r.agent, version: r.agentVersion })),
    modes: [...new Set(runs.map((r) => r.mode))],
  };
}

/** A side's agents and versions as one comparable string. */
function agentsOf(runs: readonly RunResult[]): string {
  return JSON.stringify([...new Set(runs.map((r) => `${r.agent}@${r.agentVersion}`))].sort());
}

function describeRuns(runs: readonly RunResult[]): string {
  if (runs.length === 0) return 'no runs';
  const first = runs[0];
  const example = first
    ? `, e.g. ${first.scenarioId} / ${first.faultPlanId} / seed ${first.seed} / trial ${first.trial}`
    : '';
  return `${runs.length} run(s) of ${[...new Set(runs.map((r) => r.scenarioId))].length} scenario(s)${example}`;
}

function meanOrNull(values: readonly (number | null)[]): number | null {
  const present = values.filter((v) => v !== null);
  return present.length === 0 ? null : present.reduce((s, v) => s + v, 0) / present.length;
}

const pct = (rate: number | null): string =>
  rate === null ? '–' : `${(Math.round(rate * 1000) / 10).toString()}%`;
const points = (delta: number | null): string => {
  if (delta === null) return '–';
  const rounded = Math.round(delta * 1000) / 10;
  return rounded === 0 ? '0 pp' : `${rounded > 0 ? '+' : '−'}${Math.abs(rounded).toString()} pp`;
};
const pValue = (p: number): string =>
  p === 1 ? '1' : p < 0.0001 ? '< 0.0001' : p.toPrecision(2).replace(/\.?0+$/, '');
/** `p = 0.002`, or `p < 0.0001`. */
const pIs = (p: number): string => `p ${p < 0.0001 ? '' : '= '}${pValue(p)}`;
const allowed = (fraction: number): string => `${(Math.round(fraction * 1000) / 10).toString()} pp`;
const agentList = (s: SideSummary): string =>
  s.agentVersions.map((a) => `${a.name} ${a.version}`).join(', ') || '–';
const where = (key: PairKey): string =>
  `${key.scenarioId} / ${key.faultPlanId} · seed ${key.seed} · trial ${key.trial}`;

const ASPECT_LABELS: Readonly<Record<VersionDifference['aspect'], string>> = {
  agent: 'agent',
  model: 'model',
  prompt: 'prompt hash',
  temperature: 'temperature',
  'model-seed': 'model seed',
  contract: 'contract version',
  policy: 'policy version',
  mode: 'mode',
};
const values = (list: readonly string[]): string => list.join(', ') || '–';

/** The gate's reasoning for one core row that dropped: both figures, and why it gates or not. */
function gateLine(r: RowComparison, comparison: Comparison): string {
  const drop = `dropped ${allowed(-r.delta)}`;
  const limit = allowed(comparison.maxRegression);
  const alpha = `α = ${comparison.alpha.toString()}`;
  const test = `${pIs(r.pValue)} (b ${r.lost}, c ${r.gained})`;
  switch (r.gate) {
    case 'regressed':
      return `${drop} > ${limit} allowed and ${test} ≤ ${alpha}: gates`;
    case 'not-significant':
      return `${drop} > ${limit} allowed, but ${test} > ${alpha}: not significant, does not gate`;
    case 'within-threshold':
      return `${drop} ≤ ${limit} allowed (${test}): within the threshold, does not gate`;
    case 'no-drop':
    case 'not-core':
      return `no drop (${test})`;
  }
}

/**
 * The comparison for a terminal: what differs between A and B, the pass-rate table (dimension,
 * A, B, Δ, the discordant pairs b and c, McNemar's p and the gate), the pass^k table, the gate's
 * reasoning for each core row that dropped, the regressions and fixes with the commands that
 * replay both sides, the unpaired runs, and the verdict.
 */
export function renderComparison(
  comparison: Comparison,
  options: { color: boolean; labels?: { a: string; b: string } },
): string {
  const paint = (code: number, text: string): string =>
    options.color ? `\u001b[${code}m${text}\u001b[39m` : text;
  const look = {
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
  };
  const side = (name: 'A' | 'B', s: SideSummary, label?: string): string =>
    `${name}: ${label ?? ''}${label ? ' — ' : ''}${s.runs} run(s), agent ${agentList(s)}, mode ${s.modes.join(', ') || '–'}`;
  const lines = [
    side('A', comparison.a, options.labels?.a),
    side('B', comparison.b, options.labels?.b),
  ];
  const changed = comparison.versions.filter((v) => v.changed);
  const same = comparison.versions.filter((v) => !v.changed);
  if (changed.length === 0) lines.push('What differs between A and B: nothing in their versions');
  else {
    lines.push('What differs between A and B:');
    const width = Math.max(...changed.map((v) => ASPECT_LABELS[v.aspect].length));
    for (const v of changed)
      lines.push(`  ${ASPECT_LABELS[v.aspect].padEnd(width)}  ${values(v.a)} → ${values(v.b)}`);
  }
  if (same.length > 0)
    lines.push(
      `The same on both sides: ${same.map((v) => `${ASPECT_LABELS[v.aspect]} ${values(v.a)}`).join(' · ')}`,
    );
  lines.push(`${comparison.pairs} pair(s) by scenario, fault plan, seed and trial`);

  const rates = new Table({
    head: ['dimension', 'A', 'B', 'Δ', 'b: A✓ B✗', 'c: A✗ B✓', 'McNemar p', 'gate'],
    ...look,
  });
  const gateCell: Readonly<Record<RowGate, string>> = {
    regressed: paint(31, 'regressed'),
    'not-significant': paint(33, 'not significant'),
    'within-threshold': 'within threshold',
    'no-drop': '',
    'not-core': '',
  };
  for (const r of comparison.rows) {
    rates.push([
      r.core ? `${r.row} *` : r.row,
      pct(r.a.rate),
      pct(r.b.rate),
      points(r.delta),
      r.lost,
      r.gained,
      pValue(r.pValue),
      gateCell[r.gate],
    ]);
  }
  lines.push(rates.toString());
  lines.push(
    `* core: B regresses when its pass rate falls more than ${allowed(comparison.maxRegression)} below A's and McNemar's p ≤ ${comparison.alpha.toString()}`,
  );

  const passK = new Table({ head: [`pass^${comparison.k}`, 'A', 'B', 'Δ'], ...look });
  for (const r of comparison.rows)
    passK.push([r.row, pct(r.a.passK), pct(r.b.passK), points(r.deltaK)]);
  lines.push(passK.toString());
  lines.push(
    `pass^${comparison.k} averages ${comparison.groupsWithK} of ${comparison.groups} (scenario, fault plan) group(s) with at least ${comparison.k} pair(s)`,
  );

  const dropped = comparison.rows.filter((r) => r.core && r.gate !== 'no-drop');
  lines.push(
    '',
    `Gate — a core row gates when its drop is larger than ${allowed(comparison.maxRegression)} AND significant at α = ${comparison.alpha.toString()}${dropped.length === 0 ? ': no core row dropped' : ':'}`,
  );
  const width = Math.max(0, ...dropped.map((r) => r.row.length));
  for (const r of dropped) lines.push(`  ${r.row.padEnd(width)}  ${gateLine(r, comparison)}`);

  const pairList = (title: string, list: readonly ChangedPair[], mark: string): void => {
    lines.push('', `${title} (${list.length})${list.length === 0 ? ': none' : ':'}`);
    for (const c of list) {
      lines.push(`  ${mark} ${where(c)}`);
      if (c.failing.length > 0)
        lines.push(
          `      ${c.failing.map((f) => `${f.dimension}: ${f.codes.join(', ') || '(no finding)'}`).join(' · ')}`,
        );
      lines.push(`      replay A: ${c.replay.a}`, `      replay B: ${c.replay.b}`);
      for (const [name, cassettes, replay] of [
        ['A', c.modelCassettes.a, c.replay.a],
        ['B', c.modelCassettes.b, c.replay.b],
      ] as const) {
        if (!cassettes) continue;
        // A recording run's command would call the model again: say how to replay it offline.
        const offline = replay.includes('--replay-model')
          ? ''
          : ` (offline: add --replay-model ${cassettes.dir})`;
        lines.push(
          `      model replies of ${name}: ${cassettes.mode === 'replay' ? 'replayed from' : 'recorded in'} ${cassettes.dir}${offline}`,
        );
      }
    }
  };
  pairList('Regressions — passed in A, failed in B', comparison.regressions, paint(31, '✗'));
  pairList('Fixes — failed in A, passed in B', comparison.fixes, paint(32, '✓'));

  for (const [name, list] of [
    ['A', comparison.unpaired.a],
    ['B', comparison.unpaired.b],
  ] as const) {
    lines.push(
      '',
      `Unpaired runs of ${name} (${list.length})${list.length === 0 ? ': none' : ' — not in the rates above:'}`,
    );
    for (const u of list)
      lines.push(`  ${u.pass ? 'pass' : 'FAIL'} ${where(u)}`, `      replay: ${u.replay}`);
  }

  lines.push('', paint(comparison.regressed ? 31 : 32, verdict(comparison)));
  return lines.join('\n');
}

/** The last line: whether B regressed, with each deciding row's drop and p. */
function verdict(comparison: Comparison): string {
  const limit = allowed(comparison.maxRegression);
  const alpha = `α = ${comparison.alpha.toString()}`;
  const figures = (r: RowComparison): string => `${r.row} ${points(r.delta)} (${pIs(r.pValue)})`;
  const worst = comparison.rows.filter((r) => r.regressed);
  if (worst.length > 0)
    return `B regressed: ${worst.map(figures).join(', ')} — each a drop larger than the allowed ${limit} and significant at ${alpha}`;
  const noise = comparison.rows.filter((r) => r.gate === 'not-significant');
  if (noise.length > 0)
    return `B did not regress: ${noise.map(figures).join(', ')} dropped more than the allowed ${limit}, but not significantly at ${alpha}`;
  return `B did not regress: no core dimension dropped more than ${limit}`;
}
