/**
 * A box-drawn table without colour, line for line what cli-table3 draws with no lines between
 * rows (the table report's layout), for cells whose width is their length: printable ASCII and
 * the report's marks. cli-table3 measures and pads every cell through its option merging and
 * ANSI-aware width, which cost a 200-run suite's table a tenth of a second or more; this is a
 * string join. Anything else (colour, wide or combining characters, ragged rows) it declines,
 * and the caller draws the table with cli-table3 as before.
 */

/** Cells whose terminal width is their length in UTF-16 units. */
const MEASURABLE = /^[\x20-\x7e✓✗–]*$/;

/**
 * The table's lines joined by `\n` (head, then each row; one column per head cell, each padded
 * one space either side and left-aligned), or `undefined` when a cell is not {@link MEASURABLE}
 * or a row's length differs from the head's.
 *
 * @example
 * ```ts
 * plainBoxTable(['a', 'bb'], [['x', 'yyy']]);
 * // '┌───┬─────┐\n│ a │ bb  │\n│ x │ yyy │\n└───┴─────┘'
 * ```
 */
export function plainBoxTable(
  head: readonly string[],
  rows: readonly (readonly string[])[],
): string | undefined {
  const all = [head, ...rows];
  const widths = head.map(() => 0);
  for (const row of all) {
    if (row.length !== head.length) return undefined;
    for (const [i, cell] of row.entries()) {
      if (!MEASURABLE.test(cell)) return undefined;
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    }
  }
  const rule = (left: string, join: string, right: string): string =>
    left + widths.map((w) => '─'.repeat(w + 2)).join(join) + right;
  const line = (row: readonly string[]): string =>
    `│${row.map((cell, i) => ` ${cell.padEnd(widths[i] ?? 0)} `).join('│')}│`;
  return [rule('┌', '┬', '┐'), ...all.map(line), rule('└', '┴', '┘')].join('\n');
}
