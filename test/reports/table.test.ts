import { beforeAll, describe, expect, it } from 'vitest';
import { DIMENSIONS } from '../../graders/grade.js';
import { type RunResult } from '../../reports/results.js';
import { renderTable } from '../../reports/table.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { makeResultSet, runRecord } from '../support/result-sets.js';
import { tempDir } from '../support/cli.js';

/**
 * Real result sets: the no-reconcile mutant under the lost-acknowledgement plans of the
 * partial refund, twice each — it settles the refund (the provider honours keys) but sends the
 * customer's email twice (the mailer does not) — and the reference on the full refund, once.
 */
let mutant: RunResult[];
let reference: RunResult[];

beforeAll(async () => {
  mutant = await makeResultSet(tempDir('table'), { agent: 'no-reconcile', trials: 2 });
  reference = await makeResultSet(tempDir('table'), {
    globs: ['refunds/full-refund'],
    agent: 'reference',
    faults: 'all',
  });
});

/** The table's body rows (lines between borders), each as its trimmed cells. */
function rows(table: string): string[][] {
  return table
    .split('\n')
    .filter((line) => line.startsWith('│'))
    .map((line) =>
      line
        .split('│')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

function row(table: string, first: string, second: string): string[] {
  const found = rows(table).find((r) => r[0] === first && r[1] === second);
  if (!found) throw new Error(`no row ${first} / ${second} in\n${table}`);
  return found;
}

const HEAD = ['scenario', 'fault plan', ...DIMENSIONS, 'result'];

describe('renderTable over several trials', () => {
  it('has a row per scenario × fault plan with passing trials per dimension', () => {
    const table = renderTable({ results: mutant, k: 2 }, { color: false });

    expect(rows(table)[0]).toEqual(HEAD);
    const settled = row(table, 'refunds/partial-refund', 'refund-ack-lost');
    const emailed = row(table, 'refunds/partial-refund', 'message-ack-lost');
    expect(settled.slice(2)).toEqual(DIMENSIONS.map(() => '2/2').concat('2/2'));
    const byDimension = Object.fromEntries(DIMENSIONS.map((d, i) => [d, emailed[i + 2]]));
    expect(byDimension).toMatchObject({
      outcome: '0/2',
      policy: '2/2',
      integrity: '0/2',
      recovery: '0/2',
      'tool-use': '2/2',
    });
    expect(emailed.at(-1)).toBe('0/2');
  });

  it('totals each dimension over every run, then pass^1 and pass^k', () => {
    const table = renderTable({ results: mutant, k: 2 }, { color: false });

    const total = row(table, 'total', '');
    expect(total.slice(2, 6)).toEqual(['2/4', '4/4', '2/4', '2/4']);
    expect(total.at(-1)).toBe('2/4');
    expect(row(table, 'pass^1', '').slice(2, 6)).toEqual(['50%', '100%', '50%', '50%']);
    expect(row(table, 'pass^2', '').at(-1)).toBe('50%');
  });

  it('lists every failing run with its findings and its replay command', () => {
    const table = renderTable({ results: mutant, k: 2 }, { color: false });
    const failed = mutant.filter((r) => !r.pass);

    expect(failed).toHaveLength(2);
    expect(table).toContain('Failures (2 of 4 runs)');
    for (const r of failed) {
      expect(table).toContain(
        `✗ refunds/partial-refund / message-ack-lost · trial ${r.trial} · seed ${r.seed} · no-reconcile → completed`,
      );
      expect(table).toContain(`    replay: ${r.replay}`);
    }
    expect(table).toMatch(/^ {4}recovery · unreconciled-retry: send_customer_message/m);
    expect(table).toMatch(/^ {4}integrity · duplicate-effect: /m);
    expect(table).toContain('4 run(s) of 1 scenario(s): 2 passed, 2 failed');
  });

  it('paints marks only when asked to', () => {
    expect(renderTable({ results: mutant, k: 2 }, { color: false })).not.toContain('\u001b[');
    expect(renderTable({ results: mutant, k: 2 }, { color: true })).toContain('\u001b[31m0/2');
  });
});

describe('renderTable over one trial', () => {
  it('marks each dimension ✓ or ✗, shows pass^1 only, and lists no failure when all pass', () => {
    const table = renderTable({ results: reference, k: 1 }, { color: false });

    const fullRefund = BUILT_IN_SCENARIOS.find((s) => s.id === 'refunds/full-refund')!;
    expect(rows(table).map((r) => r[1])).toEqual([
      'fault plan',
      'none',
      ...fullRefund.faultPlans.map((p) => p.id),
      '',
      '',
    ]);
    expect(row(table, 'refunds/full-refund', 'none').slice(2)).toEqual(
      DIMENSIONS.map(() => '✓').concat('pass'),
    );
    expect(row(table, 'pass^1', '').at(-1)).toBe('100%');
    expect(table).not.toContain('pass^2');
    expect(table).not.toContain('Failures');
  });

  it('marks a failing dimension ✗ and a failing run FAIL', () => {
    const [first] = reference;
    const failing = withFinding(first!, 'recovery', false, 'retry-without-backoff', 'at once');

    const table = renderTable({ results: [failing], k: 1 }, { color: false });

    const cells = row(table, 'refunds/full-refund', 'none');
    expect(cells[2 + DIMENSIONS.indexOf('recovery')]).toBe('✗');
    expect(cells.at(-1)).toBe('FAIL');
    expect(table).toContain('    recovery · retry-without-backoff: at once');
  });

  it('lists passing runs with findings outside the core dimensions apart, marked !', () => {
    const [first] = reference;
    const flagged = withFinding(first!, 'efficiency', true, 'redundant-read', 'read twice');

    const table = renderTable({ results: [flagged], k: 1 }, { color: false });

    expect(table).not.toContain('Failures');
    expect(table).toContain('Passing runs with findings outside the core dimensions');
    expect(table).toContain('! refunds/full-refund / none · trial 0');
    expect(table).toContain('    efficiency · redundant-read: read twice');
  });

  it('prints text from the run as text: control characters never reach the terminal', () => {
    const [first] = reference;
    const hostile = withFinding(first!, 'policy', false, 'injection-followed', 'ok\u001b[2J\nrm');

    const table = renderTable({ results: [hostile], k: 1 }, { color: false });

    expect(table).not.toContain('\u001b');
    expect(table).toContain('policy · injection-followed: ok\\u001b[2J\\nrm');
  });

  it('says so when there is nothing to show', () => {
    expect(renderTable({ results: [], k: 1 }, { color: false })).toBe('no runs');
  });
});

/** A copy of a real run with one more finding in one dimension. */
function withFinding(
  run: RunResult,
  dimension: (typeof DIMENSIONS)[number],
  pass: boolean,
  code: string,
  message: string,
): RunResult {
  const copy = structuredClone(run);
  const grade = copy.grades[dimension]!;
  grade.pass = pass;
  grade.findings.push({ code, message, refs: [] });
  copy.pass =
    copy.pass && (pass || !['outcome', 'policy', 'integrity', 'recovery'].includes(dimension));
  return copy;
}

describe('renderTable: a dimension not judged', () => {
  it('shows n/a where no run of the row could be judged on it, and ✓/✗ where some could', () => {
    const unjudged = (trial: number, faultPlanId: string): RunResult => {
      const r = runRecord({ mode: 'replay', faultPlanId, trial });
      const outcome = r.grades.outcome;
      if (!outcome) throw new Error('no outcome grade');
      return {
        ...r,
        grades: { ...r.grades, outcome: { ...outcome, notApplicable: 'no verdict' } },
      };
    };
    const results = [
      unjudged(0, 'recorded-0'),
      unjudged(1, 'recorded-0'),
      runRecord({ mode: 'replay', faultPlanId: 'recorded-1' }),
    ].map((r, index) => ({ ...r, index }));

    const text = renderTable({ results, k: 1 }, { color: false });

    expect(row(text, 'refunds/full-refund', 'recorded-0')[2]).toBe('n/a');
    expect(row(text, 'refunds/full-refund', 'recorded-1')[2]).toBe('✓');
  });
});
