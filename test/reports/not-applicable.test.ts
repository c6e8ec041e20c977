import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../../reports/html.js';
import { jsonReport } from '../../reports/json.js';
import { renderJunit } from '../../reports/junit.js';
import type { RunResult } from '../../reports/results.js';
import { renderShow } from '../../reports/show.js';
import { renderTable } from '../../reports/table.js';
import { tempDir } from '../support/cli.js';
import { makeResultSet } from '../support/result-sets.js';

/**
 * The naive chat loop (no probes, no planner) under the partial refund's crash plans: the
 * crash while awaiting a backoff is a runtime probe it never reaches (not applicable); the
 * crash after the refund is applied is the world's, and reaches it (matched by the refund's
 * tool, as the loop sends no operation id).
 */
let out: string;
let results: RunResult[];
let skipped: RunResult;

beforeAll(async () => {
  out = tempDir('not-applicable');
  results = await makeResultSet(out, {
    globs: ['refunds/partial-refund'],
    faults: 'crash',
    agent: 'naive-chat-loop',
  });
  const found = results.find((r) => r.faultPlanId === 'crash-awaiting-backoff');
  if (!found) throw new Error('no crash-awaiting-backoff run');
  skipped = found;
});

const trajectoryOf = (r: RunResult): unknown =>
  JSON.parse(readFileSync(join(out, r.trajectoryFile), 'utf8')) as unknown;

describe('faults not applicable to the agent, in every report', () => {
  it('are in the run record, and only where a fault could not reach the agent', () => {
    expect(skipped.faultsNotApplicable).toEqual([
      {
        index: 1,
        kind: 'crash',
        reason: expect.stringMatching(
          /awaiting-backoff crash probe is inside the agent's runtime/,
        ) as string,
      },
    ]);
    expect(skipped.faultsFired).toEqual(['transient']);
    const reached = results.find((r) => r.faultPlanId === 'crash-after-apply');
    expect(reached?.faultsNotApplicable).toBeUndefined();
    expect(reached?.faultsFired).toEqual(['crash']);
    // Never counted as missed.
    const codes = Object.values(skipped.grades).flatMap((g) => g.findings.map((f) => f.code));
    expect(codes).not.toContain('fault-not-exercised');
  });

  it('the table counts and lists them as a note', () => {
    const text = renderTable({ results, k: 1 }, { color: false });
    expect(text).toMatch(
      /Not applicable: 2 fault\(s\) in 2 run\(s\) cannot reach the agent \(never fired, never failed\)/,
    );
    expect(text).toMatch(
      /- refunds\/partial-refund \/ crash-awaiting-backoff: fault 1 \(crash\): the awaiting-backoff crash probe/,
    );
    expect(text).toMatch(/, 2 fault\(s\) not applicable to the agent$/);
  });

  it('the table counts a fault the agent never reached apart from one that cannot reach it', () => {
    const unreached = results.map((r, i) =>
      i === 0
        ? {
            ...r,
            faultsNotApplicable: [
              { index: 0, kind: 'timeout', reason: 'never reached: the trigger never came' },
            ],
          }
        : r,
    );
    const text = renderTable({ results: unreached, k: 1 }, { color: false });
    expect(text).toMatch(/fault\(s\) not applicable to the agent, 1 fault\(s\) never reached$/);
  });

  it('show, JSON, JUnit and the HTML run page show them, never as a failure', () => {
    const shown = renderShow(skipped, trajectoryOf(skipped), { color: false });
    expect(shown).toMatch(/transient, crash planned · transient fired · 1 not applicable/);
    expect(shown).toMatch(/not applicable · fault 1 \(crash\): the awaiting-backoff crash probe/);

    const json = jsonReport({ results, k: 1 });
    expect(json.results.find((r) => r.id === skipped.id)?.faultsNotApplicable).toHaveLength(1);

    const xml = renderJunit({ results });
    const testcase = xml.split('<testcase').find((c) => c.includes('crash-awaiting-backoff'));
    expect(testcase).toMatch(/not applicable: fault 1 \(crash\): the awaiting-backoff crash probe/);
    expect(testcase).not.toMatch(/<failure[^>]*fault-not-exercised/);

    const page = renderHtmlReport({ results, k: 1, trajectory: trajectoryOf });
    expect(page).toContain('faults not applicable');
    expect(page).toMatch(/fault 1 \(crash\): the awaiting-backoff crash probe is inside/);
  });
});
