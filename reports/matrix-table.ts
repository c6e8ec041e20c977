import Table from 'cli-table3';
import { DIMENSIONS } from '../graders/grade.js';
import type { MatrixReport } from '../graders/matrix.js';

/**
 * The detection matrix as a terminal table: one row per agent, one column per dimension with
 * the finding codes raised there (· when clean), then the expected detection and whether it
 * held on enough scenarios and worlds. Problems follow the table.
 */
export function renderMatrix(report: MatrixReport, options: { color: boolean }): string {
  const paint = (code: number, text: string): string =>
    options.color ? `\u001b[${code}m${text}\u001b[39m` : text;
  const table = new Table({
    head: ['agent', ...DIMENSIONS, 'runs failed', 'expected detection'],
    style: { head: options.color ? ['cyan'] : [], border: options.color ? ['grey'] : [] },
  });
  for (const agent of report.agents) {
    const cells = report.cells[agent];
    const tally = report.failing[agent] ?? { failed: 0, runs: 0 };
    const detection = report.detections.find((d) => d.agent === agent);
    table.push([
      agent,
      ...DIMENSIONS.map((d) => {
        const codes = cells?.[d] ?? [];
        return codes.length === 0 ? '·' : codes.join('\n');
      }),
      `${tally.failed}/${tally.runs}`,
      detection
        ? `${detection.met ? paint(32, '✓') : paint(31, '✗')} ${detection.code}\n${detection.scenarios.length} scenario(s), ${detection.worlds.length} world(s)`
        : agent === 'reference'
          ? tally.failed === 0 && DIMENSIONS.every((d) => (cells?.[d] ?? []).length === 0)
            ? paint(32, '✓ clean')
            : paint(31, '✗ not clean')
          : '',
    ]);
  }
  const lines = [table.toString()];
  if (report.ok) lines.push(paint(32, 'detection matrix holds'));
  else {
    lines.push(paint(31, `detection matrix broken (${report.problems.length}):`));
    for (const p of report.problems) lines.push(`  ✗ ${p}`);
  }
  return lines.join('\n');
}
