import Table from 'cli-table3';
import { runPassed } from './graded.js';
import { mostTrials, passRate } from './pass-rate.js';
import type { RunResult } from './results.js';

/** One agent under one kind of fault: how often it still succeeds. */
export interface DegradationRow {
  /** The agent's name, and its model where it has one: `tool-loop (openai:gpt-4.1)`. */
  readonly agent: string;
  /** The plan's fault kinds joined by `+` (`lost-ack`, `crash+timeout`), or `no faults`. */
  readonly kind: string;
  readonly runs: number;
  readonly passed: number;
  /** Runs that passed and ended as their plan expects, averaged per scenario and plan. */
  readonly pass1: number;
  /** τ-bench's pass^k at the table's k; null when no scenario and plan ran k trials. */
  readonly passK: number | null;
  /** pass^1 under this kind minus pass^1 with no faults; null without fault-free runs. */
  readonly drop1: number | null;
}

export interface Degradation {
  readonly k: number;
  readonly rows: readonly DegradationRow[];
}

export const NO_FAULTS_KIND = 'no faults';

/** What a run's plan injects, as one kind: its kinds sorted and joined, or `no faults`. */
export function faultKindOf(result: RunResult): string {
  const kinds = [...new Set(result.faultKinds)].sort();
  return kinds.length === 0 ? NO_FAULTS_KIND : kinds.join('+');
}

function agentOf(result: RunResult): string {
  return result.model === undefined ? result.agent : `${result.agent} (${result.model.id})`;
}

/**
 * pass^1 and pass^k per agent and fault kind (τ-bench's table under faults): a run counts when
 * it passed every core dimension and ended as its plan expects. Agents and kinds keep the
 * order the results first show them, with no faults first. `k` defaults to the most trials
 * any scenario and plan ran.
 */
export function degradation(
  results: readonly RunResult[],
  options: { k?: number } = {},
): Degradation {
  const k = options.k ?? mostTrials(results);
  const byAgent = new Map<string, Map<string, RunResult[]>>();
  for (const r of results) {
    const agent = agentOf(r);
    let kinds = byAgent.get(agent);
    if (kinds === undefined) byAgent.set(agent, (kinds = new Map<string, RunResult[]>()));
    const kind = faultKindOf(r);
    const runs = kinds.get(kind);
    if (runs === undefined) kinds.set(kind, [r]);
    else runs.push(r);
  }
  const rows: DegradationRow[] = [];
  for (const [agent, kinds] of byAgent) {
    const free = kinds.get(NO_FAULTS_KIND);
    const base = free === undefined ? null : passRate(free, 1, runPassed);
    const order = [...kinds.keys()].sort(
      (a, b) => Number(b === NO_FAULTS_KIND) - Number(a === NO_FAULTS_KIND),
    );
    for (const kind of order) {
      const runs = kinds.get(kind) ?? [];
      const pass1 = passRate(runs, 1, runPassed) ?? 0;
      rows.push({
        agent,
        kind,
        runs: runs.length,
        passed: runs.filter(runPassed).length,
        pass1,
        passK: passRate(runs, k, runPassed),
        drop1: base === null ? null : pass1 - base,
      });
    }
  }
  return { k, rows };
}

const pct = (v: number | null): string => (v === null ? '–' : `${(100 * v).toFixed(1)}%`);
const points = (v: number | null): string =>
  v === null ? '–' : v === 0 ? '0' : `${v > 0 ? '+' : '−'}${Math.abs(100 * v).toFixed(1)}`;

/** The table as the terminal shows it, one block of rows per agent. */
export function renderDegradation(table: Degradation, options: { color: boolean }): string {
  const look = options.color ? {} : { style: { head: [], border: [] } };
  const withK = table.k > 1;
  const out = new Table({
    head: [
      'agent',
      'fault kind',
      'runs',
      'passed',
      'pass^1',
      ...(withK ? [`pass^${table.k}`] : []),
      'Δ pass^1',
    ],
    colAligns: ['left', 'left', 'right', 'right', 'right', 'right', 'right'],
    // One line per row: an agent's block reads down its kinds.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    ...look,
  });
  let last: string | undefined;
  for (const r of table.rows) {
    out.push([
      r.agent === last ? '' : r.agent,
      r.kind,
      String(r.runs),
      String(r.passed),
      pct(r.pass1),
      ...(withK ? [pct(r.passK)] : []),
      r.kind === NO_FAULTS_KIND ? '' : points(r.drop1),
    ]);
    last = r.agent;
  }
  return [
    out.toString(),
    `${withK ? `pass^1 and pass^${table.k} (τ-bench's C(c,k)/C(n,k))` : 'pass^1'} per scenario and plan, averaged per fault kind; a run counts when it passed and ended as its plan expects. Δ: points of pass^1 against no faults.${withK ? '' : ' One trial per plan: run with --trials k for pass^k.'}`,
  ].join('\n');
}
