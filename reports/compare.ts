import Table from 'cli-table3';
import { CORE_DIMENSIONS, DIMENSIONS, type Dimension } from '../graders/grade.js';
import { passHatK } from '../graders/metrics.js';
import type { RunResult } from './results.js';

type RunGrade = NonNullable<RunResult['grades'][string]>;

/**
 * A/B comparison of two result sets. Runs are paired by what makes them the same experiment —
 * scenario, fault plan, seed and trial — and never by agent or mode, since comparing two
 * versions of an agent (or one agent in two modes) is the point. Rates, pass^k and the paired
 * test are computed over the pairs only, so every figure compares like with like; runs without
 * a partner are listed, never dropped.
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
  /** A core row whose B rate is below A's by more than `maxRegression`. */
  readonly regressed: boolean;
}

/** A pair whose overall verdict changed, with what failed and the command that replays it. */
export interface ChangedPair extends PairKey {
  readonly aId: string;
  readonly bId: string;
  /** The failing side's failing dimensions (B for a regression, A for a fix), with their finding codes. */
  readonly failing: readonly { readonly dimension: Dimension; readonly codes: readonly string[] }[];
  /** The failing side's replay command. */
  readonly replay: string;
}

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
  readonly pairs: number;
  /** The k of every pass^k. */
  readonly k: number;
  /** (scenario, fault plan) groups of pairs, and those with at least k pairs. */
  readonly groups: number;
  readonly groupsWithK: number;
  readonly maxRegression: number;
  /** The overall pass first, then each dimension in the graders' order. */
  readonly rows: readonly RowComparison[];
  /** Pairs A passed and B failed (overall), in A's case order. */
  readonly regressions: readonly ChangedPair[];
  /** Pairs A failed and B passed (overall), in A's case order. */
  readonly fixes: readonly ChangedPair[];
  readonly unpaired: { readonly a: readonly UnpairedRun[]; readonly b: readonly UnpairedRun[] };
  /** Some core row regressed. */
  readonly regressed: boolean;
}

export interface CompareOptions {
  /** A fraction in 0..1: how far B's pass rate of a core row may fall below A's (default 0). */
  readonly maxRegression?: number;
  /** The k of pass^k; default the fewest pairs any (scenario, fault plan) group has. */
  readonly k?: number;
}

/**
 * Compares result set B against baseline A: pass rates per dimension and overall with the
 * exact McNemar p-value of each difference, pass^k on both sides, the pairs that regressed or
 * were fixed, and the runs left unpaired. Throws {@link CompareError} when the sets share no
 * run, or when a set holds two runs of one pair key (it mixes agents or modes).
 *
 * @example
 * ```ts
 * const a = readResults('.faultline/main').results;
 * const b = readResults('.faultline/branch').results;
 * const comparison = compareResults(a, b, { maxRegression: 0.05 });
 * if (comparison.regressed) console.log(comparison.regressions.map((r) => r.replay));
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
    // Compare counts, not rates minus a fraction, so 9/10 against 10/10 at 0.1 is not a regression by rounding.
    const regressed = core && (sideA.passed - sideB.passed) / pairs.length - maxRegression > 1e-12;
    return {
      row,
      core,
      a: sideA,
      b: sideB,
      delta: sideB.rate - sideA.rate,
      deltaK: sideA.passK === null || sideB.passK === null ? null : sideB.passK - sideA.passK,
      lost,
      gained,
      pValue: mcnemarExact(lost, gained),
      regressed,
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
    replay: failing.replay,
  });
  const unpaired = (runs: readonly RunResult[], partners: Map<string, RunResult>): UnpairedRun[] =>
    runs
      .filter((r) => !partners.has(pairKey(r)))
      .map((r) => ({ ...keyOf(r), id: r.id, pass: r.pass, replay: r.replay }));

  return {
    a: summarise(a),
    b: summarise(b),
    agentChanged: agentsOf(a) !== agentsOf(b),
    pairs: pairs.length,
    k,
    groups: groups.size,
    groupsWithK: sizes.filter((n) => n >= k).length,
    maxRegression,
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
const allowed = (fraction: number): string => `${(Math.round(fraction * 1000) / 10).toString()} pp`;
const agentList = (s: SideSummary): string =>
  s.agentVersions.map((a) => `${a.name} ${a.version}`).join(', ') || '–';
const where = (key: PairKey): string =>
  `${key.scenarioId} / ${key.faultPlanId} · seed ${key.seed} · trial ${key.trial}`;

/**
 * The comparison for a terminal: the pass-rate table (dimension, A, B, Δ, the discordant pairs
 * and McNemar's p), the pass^k table, the regressions and fixes with the command that replays
 * each failure, the unpaired runs, and the verdict.
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
    comparison.agentChanged
      ? `the agent differs: ${agentList(comparison.a)} → ${agentList(comparison.b)}`
      : `the same agent on both sides: ${agentList(comparison.a)}`,
    `${comparison.pairs} pair(s) by scenario, fault plan, seed and trial`,
  ];

  const rates = new Table({
    head: ['dimension', 'A', 'B', 'Δ', 'A✓ B✗', 'A✗ B✓', 'McNemar p', ''],
    ...look,
  });
  for (const r of comparison.rows) {
    rates.push([
      r.core ? `${r.row} *` : r.row,
      pct(r.a.rate),
      pct(r.b.rate),
      points(r.delta),
      r.lost,
      r.gained,
      pValue(r.pValue),
      r.regressed ? paint(31, 'regressed') : '',
    ]);
  }
  lines.push(rates.toString());
  lines.push(
    `* core: B regresses when its pass rate falls more than ${allowed(comparison.maxRegression)} below A's`,
  );

  const passK = new Table({ head: [`pass^${comparison.k}`, 'A', 'B', 'Δ'], ...look });
  for (const r of comparison.rows)
    passK.push([r.row, pct(r.a.passK), pct(r.b.passK), points(r.deltaK)]);
  lines.push(passK.toString());
  lines.push(
    `pass^${comparison.k} averages ${comparison.groupsWithK} of ${comparison.groups} (scenario, fault plan) group(s) with at least ${comparison.k} pair(s)`,
  );

  const changed = (title: string, list: readonly ChangedPair[], mark: string): void => {
    lines.push('', `${title} (${list.length})${list.length === 0 ? ': none' : ':'}`);
    for (const c of list) {
      lines.push(`  ${mark} ${where(c)}`);
      if (c.failing.length > 0)
        lines.push(
          `      ${c.failing.map((f) => `${f.dimension}: ${f.codes.join(', ') || '(no finding)'}`).join(' · ')}`,
        );
      lines.push(`      replay: ${c.replay}`);
    }
  };
  changed('Regressions — passed in A, failed in B', comparison.regressions, paint(31, '✗'));
  changed('Fixes — failed in A, passed in B', comparison.fixes, paint(32, '✓'));

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

  const worst = comparison.rows.filter((r) => r.regressed);
  lines.push(
    '',
    comparison.regressed
      ? paint(
          31,
          `B regressed: ${worst.map((r) => `${r.row} ${points(r.delta)}`).join(', ')} (allowed drop ${allowed(comparison.maxRegression)})`,
        )
      : paint(
          32,
          `B did not regress: no core dimension dropped more than ${allowed(comparison.maxRegression)}`,
        ),
  );
  return lines.join('\n');
}
