import Table from 'cli-table3';
import { CORE_DIMENSIONS, DIMENSIONS, type Dimension } from '../graders/grade.js';
import { suiteMetrics, type PassRates } from '../graders/metrics.js';
import { gradeOf, runPassed, toGradedRun } from './graded.js';
import {
  renderFaultsNotApplicable,
  renderNotApplicable,
  type NotApplicablePlan,
} from './not-applicable.js';
import {
  distinctModels,
  formatLatency,
  formatTokens,
  formatUsd,
  hadModel,
  modelText,
  modelTotals,
  usageOf,
  usageText,
} from './model-usage.js';
import { plainBoxTable } from './plain-box-table.js';
import { printable } from './printable.js';
import type { RunResult } from './results.js';

/** The trials of one scenario under one fault plan (and one agent and mode). */
interface Row {
  readonly agent: string;
  readonly mode: string;
  readonly scenarioId: string;
  readonly faultPlanId: string;
  readonly runs: RunResult[];
}

const GREEN = 32;
const RED = 31;
const YELLOW = 33;
const CYAN = 36;

/**
 * The terminal report: one row per scenario × fault plan with a mark per dimension (✓ or ✗
 * for a single trial, passing trials like `2/3` for several) and the overall result, a totals
 * row, pass^1 and pass^k per dimension and overall, then every failing run with its findings
 * and the command that replays it. Runs that pass but have findings in the other dimensions
 * follow, marked `!`.
 *
 * @example
 * ```ts
 * const { results } = readResults('.faultline');
 * console.log(renderTable({ results, k: 3 }, { color: process.stdout.isTTY }));
 * ```
 */
export function renderTable(
  input: {
    readonly results: readonly RunResult[];
    readonly k: number;
    /** Plans left out because they cannot apply in the suite's mode: listed, never hidden. */
    readonly notApplicable?: readonly NotApplicablePlan[];
  },
  options: { readonly color: boolean },
): string {
  const paint = (code: number, text: string): string =>
    options.color ? `\u001b[${code}m${text}\u001b[39m` : text;
  const results = [...input.results].sort((a, b) => a.index - b.index);
  const skipped = input.notApplicable ?? [];
  if (results.length === 0) return ['no runs', ...renderNotApplicable(skipped)].join('\n');
  const rows = groupRows(results);
  // Agent and mode get a column only when they tell rows apart (a scenario's own autonomy
  // mode is part of the scenario, not a second axis).
  const splits = (key: (r: RunResult) => string): boolean =>
    results.some((r) => results.some((o) => o.scenarioId === r.scenarioId && key(o) !== key(r)));
  const agents = splits((r) => r.agent);
  const modes = splits((r) => r.mode);
  const lead = (row: { agent: string; mode: string }): string[] => [
    ...(agents ? [row.agent] : []),
    ...(modes ? [row.mode] : []),
  ];

  const mark = (passed: number, total: number): string => {
    if (total === 1) return passed === 1 ? paint(GREEN, '✓') : paint(RED, '✗');
    const color = passed === total ? GREEN : passed === 0 ? RED : YELLOW;
    return paint(color, `${passed}/${total}`);
  };
  const verdict = (passed: number, total: number): string =>
    total === 1 ? (passed === 1 ? paint(GREEN, 'pass') : paint(RED, 'FAIL')) : mark(passed, total);
  const count = (runs: readonly RunResult[], passes: (r: RunResult) => boolean): number =>
    runs.filter(passes).length;
  const dimensionPasses =
    (d: Dimension) =>
    (r: RunResult): boolean =>
      gradeOf(r, d).pass;

  const head = [
    ...(agents ? ['agent'] : []),
    ...(modes ? ['mode'] : []),
    'scenario',
    'fault plan',
    ...DIMENSIONS,
    'result',
  ];
  const body: string[][] = [];
  for (const row of rows) {
    body.push([
      ...lead(row).map(printable),
      printable(row.scenarioId),
      printable(row.faultPlanId),
      ...DIMENSIONS.map((d) =>
        // Not judged for any run of the row (a replay with no expected end): neither ✓ nor ✗.
        row.runs.every((r) => gradeOf(r, d).notApplicable !== undefined)
          ? 'n/a'
          : mark(count(row.runs, dimensionPasses(d)), row.runs.length),
      ),
      verdict(count(row.runs, runPassed), row.runs.length),
    ]);
  }
  const blank = [...lead({ agent: '', mode: '' }).map(() => '')];
  const total = (passed: number): string => {
    const color = passed === results.length ? GREEN : passed === 0 ? RED : YELLOW;
    return paint(color, `${passed}/${results.length}`);
  };
  body.push([
    ...blank,
    'total',
    '',
    ...DIMENSIONS.map((d) => total(count(results, dimensionPasses(d)))),
    total(count(results, runPassed)),
  ]);
  const metrics = suiteMetrics(results.map(toGradedRun), { k: input.k });
  const pass = metrics.overall.passHatK;
  const rateRow = (label: string, rate: (p: PassRates) => number | null): void => {
    body.push([
      ...blank,
      label,
      '',
      ...DIMENSIONS.map((d) => percent(rate(pass.byDimension[d]))),
      percent(rate(pass.overall)),
    ]);
  };
  rateRow('pass^1', (p) => p.pass1);
  if (input.k > 1) rateRow(`pass^${input.k}`, (p) => p.passK);

  const drawn = (
    (options.color ? undefined : plainBoxTable(head, body)) ?? cliTable3(head, body, options)
  ).split('\n');
  const rule = (drawn[0] ?? '').replace('┌', '├').replaceAll('┬', '┼').replace('┐', '┤');
  // Every cell is one line (printable escapes newlines), so row i is line i + 2.
  drawn.splice(2 + rows.length, 0, rule);
  drawn.splice(2, 0, rule);
  const totals = modelTotals(results);
  // Only a suite with a model says anything of models: without one the report reads as before.
  const lines = [
    ...(totals === null ? [] : distinctModels(results).map((m) => `model ${printable(m)}`)),
    drawn.join('\n'),
  ];
  if (input.k > 1 && pass.groupsWithK < pass.groups) {
    lines.push(
      `pass^${input.k} averages the ${pass.groupsWithK} of ${pass.groups} scenario × fault plan groups with at least ${input.k} trials.`,
    );
  }
  lines.push(
    `A run passes when ${CORE_DIMENSIONS.slice(0, -1).join(', ')} and ${CORE_DIMENSIONS.at(-1) ?? ''} pass and it ends as its scenario expects.`,
  );

  if (totals !== null) lines.push('', ...modelUsageTable(rows, lead, options.color));

  const failed = results.filter((r) => !runPassed(r));
  const flagged = results.filter(
    (r) => runPassed(r) && DIMENSIONS.some((d) => gradeOf(r, d).findings.length > 0),
  );
  if (failed.length > 0) {
    lines.push('', paint(RED, `Failures (${failed.length} of ${results.length} runs)`));
    for (const r of failed) lines.push(...describe(r, paint(RED, '✗')));
  }
  if (flagged.length > 0) {
    lines.push('', paint(YELLOW, `Passing runs with findings outside the core dimensions`));
    for (const r of flagged) lines.push(...describe(r, paint(YELLOW, '!')));
  }
  lines.push(...renderNotApplicable(skipped).map((l, i) => (i === 1 ? paint(YELLOW, l) : l)));
  lines.push(...renderFaultsNotApplicable(results).map((l, i) => (i === 1 ? paint(CYAN, l) : l)));
  const skippedFaults = results.flatMap((r) => r.faultsNotApplicable ?? []);
  // A fault the agent's own path never met (its reason says so), apart from one that cannot reach it.
  const unreached = skippedFaults.filter((f) => f.reason.startsWith('never reached')).length;
  const faultsSkipped = skippedFaults.length - unreached;
  lines.push(
    '',
    `${results.length} run(s) of ${new Set(results.map((r) => r.scenarioId)).size} scenario(s): ` +
      `${results.length - failed.length} passed, ${failed.length} failed` +
      (skipped.length > 0 ? `, ${skipped.length} fault plan(s) skipped (not applicable)` : '') +
      (faultsSkipped > 0 ? `, ${faultsSkipped} fault(s) not applicable to the agent` : '') +
      (unreached > 0 ? `, ${unreached} fault(s) never reached` : ''),
  );
  if (totals !== null)
    lines.push(
      `model usage of ${totals.runs} run(s): ${usageText(totals)}` +
        (totals.costUsd === 0 && totals.inputTokens + totals.outputTokens > 0
          ? ' (no prices for the model: cost not counted)'
          : ''),
    );
  return lines.join('\n');
}

/** The table drawn by cli-table3: in colour, or with cells {@link plainBoxTable} declines. */
function cliTable3(
  head: readonly string[],
  body: readonly string[][],
  options: { readonly color: boolean },
): string {
  const table = new Table({
    head: [...head],
    // No line between rows: one is drawn under the head and above the totals (by the caller).
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
  });
  for (const row of body) table.push(row);
  return table.toString();
}

/**
 * Model usage per scenario × fault plan (summed over its trials) and for the suite: calls,
 * input and output tokens, cost and model latency. Only rows whose runs had a model.
 */
function modelUsageTable(
  rows: readonly Row[],
  lead: (row: { agent: string; mode: string }) => string[],
  color: boolean,
): string[] {
  const table = new Table({
    head: [
      ...lead({ agent: 'agent', mode: 'mode' }),
      'scenario',
      'fault plan',
      'model calls',
      'input tokens',
      'output tokens',
      'cost',
      'model latency',
    ],
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    colAligns: [
      ...lead({ agent: 'left', mode: 'left' }).map(() => 'left' as const),
      'left',
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
    ],
    style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [] },
  });
  const withModel = rows.filter((row) => row.runs.some(hadModel));
  const cells = (runs: readonly RunResult[]): string[] => {
    const u = modelTotals(runs);
    if (u === null) return ['0', '0', '0', formatUsd(0), formatLatency(0)];
    return [
      String(u.modelCalls),
      formatTokens(u.inputTokens),
      formatTokens(u.outputTokens),
      formatUsd(u.costUsd),
      formatLatency(u.modelLatencyMs),
    ];
  };
  for (const row of withModel)
    table.push([
      ...lead(row).map(printable),
      printable(row.scenarioId),
      printable(row.faultPlanId),
      ...cells(row.runs),
    ]);
  table.push([
    ...lead({ agent: '', mode: '' }).map(() => ''),
    'total',
    '',
    ...cells(withModel.flatMap((row) => row.runs)),
  ]);
  const drawn = table.toString().split('\n');
  const rule = (drawn[0] ?? '').replace('┌', '├').replaceAll('┬', '┼').replace('┐', '┤');
  drawn.splice(2 + withModel.length, 0, rule);
  drawn.splice(2, 0, rule);
  return ['Model usage (per scenario × fault plan, summed over its trials)', ...drawn];
}

/** One run's heading, what differed from the expected ending, its findings and its replay. */
function describe(r: RunResult, sign: string): string[] {
  const ended = r.stopReason ? `${r.state} (${r.stopReason})` : r.state;
  const lines = [
    `${sign} ${r.scenarioId} / ${r.faultPlanId} · trial ${r.trial} · seed ${r.seed} · ${r.agent} → ${ended}`,
  ];
  if (r.model !== undefined)
    lines.push(`    model: ${printable(modelText(r.model))} · ${usageText(usageOf(r))}`);
  for (const m of r.mismatches) lines.push(`    mismatch: ${printable(m)}`);
  for (const d of DIMENSIONS) {
    for (const f of gradeOf(r, d).findings)
      lines.push(`    ${d} · ${f.code}: ${printable(f.message)}`);
  }
  lines.push(`    replay: ${printable(r.replay)}`);
  return lines;
}

/** Rows in case order: the first run of each (agent, mode, scenario, fault plan) places it. */
function groupRows(results: readonly RunResult[]): Row[] {
  const rows = new Map<string, Row>();
  for (const r of results) {
    const key = JSON.stringify([r.agent, r.mode, r.scenarioId, r.faultPlanId]);
    const row = rows.get(key);
    if (row) row.runs.push(r);
    else
      rows.set(key, {
        agent: r.agent,
        mode: r.mode,
        scenarioId: r.scenarioId,
        faultPlanId: r.faultPlanId,
        runs: [r],
      });
  }
  return [...rows.values()];
}

/**
 * A rate as a whole percentage that never rounds to a verdict it is not: only 1 shows as
 * 100% and only 0 as 0%. `–` when nothing was measured.
 */
function percent(rate: number | null): string {
  if (rate === null) return '–';
  if (rate === 1 || rate === 0) return `${rate * 100}%`;
  return `${Math.min(99, Math.max(1, Math.round(rate * 100)))}%`;
}
