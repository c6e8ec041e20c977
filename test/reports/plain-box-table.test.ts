import Table from 'cli-table3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainBoxTable } from '../../reports/plain-box-table.js';

/** What cli-table3 draws for the same rows, borders and no colour: the reference. */
function drawnByCliTable3(head: string[], rows: string[][]): string {
  const table = new Table({
    head,
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    style: { head: [], border: [] },
  });
  for (const row of rows) table.push(row);
  return table.toString();
}

// Cells as the table report makes them: printable ASCII and its marks, sometimes empty.
const cell = fc.stringMatching(/^[\x20-\x7e✓✗–]{0,12}$/);

describe('plainBoxTable', () => {
  it('draws a table byte for byte as cli-table3 does, for cells it can measure', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((columns) =>
          fc.tuple(
            fc.array(cell, { minLength: columns, maxLength: columns }),
            fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), {
              maxLength: 8,
            }),
          ),
        ),
        ([head, rows]) => {
          expect(plainBoxTable(head, rows)).toBe(drawnByCliTable3(head, rows));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('declines cells whose width it does not know (wide, combining, escapes), so the caller draws them with cli-table3', () => {
    expect(plainBoxTable(['a'], [['日本']])).toBeUndefined();
    expect(plainBoxTable(['a'], [['e\u0301']])).toBeUndefined();
    expect(plainBoxTable(['a'], [['\u001b[32m✓\u001b[39m']])).toBeUndefined();
    expect(plainBoxTable(['a', 'b'], [['x']])).toBeUndefined();
  });
});
