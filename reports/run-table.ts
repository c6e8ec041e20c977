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
  /** Outcome, policy, integrity and recovery all pass. */
  pass: boolean;
  /** Dimensions with findings, each with its finding codes and messages. */
  findings: { dimension: string; code: string; message: string }[];
}

/**
 * The `faultline run` table: scenario, final state, actions, effects, virtual time, the
 * dimensions with findings, and the verdict (a run passes when outcome, policy, integrity and
 * recovery pass). Each failing run is then listed with its findings and its replay command.
 */
export function renderRunTable(rows: readonly RunRow[], options: { color: boolean }): string {
  const paint = (code: number, text: string): string =>
    options.color ? `\u001b[${code}m${text}\u001b[39m` : text;
  const table = new Table({
    head: [
      'scenario',
      'fault plan',
      'final state',
      'actions',
      'effects',
      'virtual time',
      'findings',
      'result',
    ],
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
      [...new Set(r.findings.map((f) => f.dimension))].join(', ') || '·',
      r.pass && r.asExpected ? paint(32, 'pass') : paint(31, 'FAIL'),
    ]);
  }
  const lines = [table.toString()];
  for (const r of rows.filter((x) => !x.asExpected || !x.pass || x.findings.length > 0)) {
    const failed = !r.asExpected || !r.pass;
    lines.push(
      failed
        ? paint(31, `✗ ${r.scenarioId} / ${r.faultPlanId}`)
        : paint(
            33,
            `! ${r.scenarioId} / ${r.faultPlanId} (passes; findings outside the core dimensions)`,
          ),
    );
    for (const m of r.mismatches) lines.push(`    ${m}`);
    for (const f of r.findings) lines.push(`    ${f.dimension} · ${f.code}: ${f.message}`);
    const agent = r.agent === 'reference' ? '' : ` --agent ${r.agent}`;
    lines.push(
      `    replay: npx faultline run ${r.scenarioId} --plan ${r.faultPlanId} --seed ${r.seed}${agent}`,
    );
  }
  return lines.join('\n');
}
