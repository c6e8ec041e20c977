import Table from 'cli-table3';
import { formatDuration } from './duration.js';

/** What the run table shows of one run: plain data, no knowledge of the engine. */
export interface RunRow {
  scenarioId: string;
  faultPlanId: string;
  agent: string;
  seed: number;
  state: string;
  stopReason: string | null;
  writesConfirmed: number;
  effects: number;
  virtualMs: number;
  asExpected: boolean;
  mismatches: string[];
}

/** The `faultline run` table: scenario, final state, actions, effects, virtual time, verdict. */
export function renderRunTable(rows: readonly RunRow[], options: { color: boolean }): string {
  const paint = (code: number, text: string): string =>
    options.color ? `\u001b[${code}m${text}\u001b[39m` : text;
  const table = new Table({
    head: ['scenario', 'fault plan', 'final state', 'actions', 'effects', 'virtual time', 'result'],
    style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
  });
  for (const r of rows) {
    table.push([
      r.scenarioId,
      r.faultPlanId,
      r.stopReason ? `${r.state} (${r.stopReason})` : r.state,
      String(r.writesConfirmed),
      String(r.effects),
      formatDuration(r.virtualMs),
      r.asExpected ? paint(32, 'as expected') : paint(31, 'UNEXPECTED'),
    ]);
  }
  const lines = [table.toString()];
  for (const r of rows.filter((x) => !x.asExpected)) {
    lines.push(paint(31, `✗ ${r.scenarioId} / ${r.faultPlanId}`));
    for (const m of r.mismatches) lines.push(`    ${m}`);
    const agent = r.agent === 'reference' ? '' : ` --agent ${r.agent}`;
    lines.push(
      `    replay: npx faultline run ${r.scenarioId} --plan ${r.faultPlanId} --seed ${r.seed}${agent}`,
    );
  }
  return lines.join('\n');
}
