/**
 * The τ-bench table under faults: pass^1 and pass^k (τ-bench's definition, C(c,k)/C(n,k) per
 * task and plan, averaged) per fault kind, for each result set given — one per agent.
 *
 *   npx faultline run 'tau-retail/*' --trials 4 --workers 2 --out .faultline/tau-reference
 *   npx faultline run 'tau-retail/*' --trials 4 --workers 2 --agent no-idempotency --out .faultline/tau-no-idem
 *   npx tsx bench/tau-retail-table.ts .faultline/tau-reference .faultline/tau-no-idem
 *
 * A run counts as a success when it passed (outcome, policy, integrity, recovery) and ended as
 * its plan expects. A plan's kind is the first word of its id (`lost-ack-a004` → lost-ack;
 * `none` → no faults), as the derived plans of the tau-retail scenarios are named.
 */
import { passHatK } from '../graders/metrics.js';
import { DERIVED_KINDS } from '../scenarios/library/tau-retail/fault-plans.js';
import { runPassed } from '../reports/graded.js';
import { readResults, type RunResult } from '../reports/results.js';

const KINDS = ['none', ...DERIVED_KINDS] as const;

function kindOf(planId: string): string {
  return KINDS.find((k) => planId === k || planId.startsWith(`${k}-`)) ?? 'other';
}

/** pass^k averaged over the (scenario, plan) pairs of a kind; null when no pair has k trials. */
function passK(results: readonly RunResult[], k: number): number | null {
  const pairs = new Map<string, { n: number; c: number }>();
  for (const r of results) {
    const key = `${r.scenarioId}\u0000${r.faultPlanId}`;
    const pair = pairs.get(key) ?? { n: 0, c: 0 };
    pair.n++;
    if (runPassed(r)) pair.c++;
    pairs.set(key, pair);
  }
  const values = [...pairs.values()]
    .map(({ n, c }) => passHatK(n, c, k))
    .filter((v): v is number => v !== null);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

const pct = (v: number | null): string => (v === null ? '—' : `${(100 * v).toFixed(1)}%`);

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: npx tsx bench/tau-retail-table.ts RESULT_DIR…');
  process.exit(2);
}
const rows: string[][] = [['agent', 'fault kind', 'runs', 'pass^1', 'pass^k', 'k']];
for (const dir of dirs) {
  const { results } = readResults(dir);
  const tau = results.filter((r) => r.scenarioId.startsWith('tau-retail'));
  const k = Math.max(1, ...tau.map((r) => r.trial + 1));
  const agent = tau[0]?.agent ?? dir;
  for (const kind of [...KINDS, 'other']) {
    const ofKind = tau.filter((r) => kindOf(r.faultPlanId) === kind);
    if (ofKind.length === 0) continue;
    rows.push([
      agent,
      kind === 'none' ? 'no faults' : kind,
      String(ofKind.length),
      pct(passK(ofKind, 1)),
      pct(passK(ofKind, k)),
      String(k),
    ]);
  }
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const [i, row] of rows.entries()) {
  console.log(row.map((cell, j) => cell.padEnd(widths[j]!)).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
