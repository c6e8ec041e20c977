import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCase, suiteCases } from '../../bin/suite.js';
import { gradeRun } from '../../graders/index.js';
import { gradedRun, suiteMetrics } from '../../graders/metrics.js';
import { toGradedRun, runPassed } from '../../reports/graded.js';
import { runResultSchema } from '../../reports/results.js';

describe('toGradedRun', () => {
  it('gives metrics the same run as grading the trajectory does', async () => {
    const out = mkdtempSync(join(tmpdir(), 'faultline-graded-'));
    const cases = await suiteCases({
      globs: ['refunds/partial-refund', 'refunds/supervised-refund'],
      agent: 'no-reconcile',
      faults: 'lost-ack,crash',
      trials: 1,
      scenarioFiles: [],
      regressions: 'regressions',
    });
    const fromTrajectory = [];
    const fromRecord = [];
    for (const c of cases) {
      const { result, trajectory } = await runCase(c, 'no-reconcile', out);
      fromTrajectory.push(gradedRun(c.scenario, trajectory, gradeRun(c.scenario, trajectory)));
      // As a report reads it: through JSON and the record schema.
      fromRecord.push(toGradedRun(runResultSchema.parse(JSON.parse(JSON.stringify(result)))));
    }

    expect(fromRecord).toEqual(JSON.parse(JSON.stringify(fromTrajectory)));
    expect(suiteMetrics(fromRecord)).toEqual(
      JSON.parse(JSON.stringify(suiteMetrics(fromTrajectory))),
    );
    expect(fromRecord.some((r) => r.crashes > 0)).toBe(true);
    expect(fromRecord.some((r) => !r.grades.pass)).toBe(true);
  });
});

describe('runPassed', () => {
  it('needs the core dimensions to pass and the run to end as expected', async () => {
    const out = mkdtempSync(join(tmpdir(), 'faultline-graded-'));
    const [c] = await suiteCases({
      globs: ['refunds/full-refund'],
      agent: 'reference',
      faults: 'none',
      trials: 1,
      scenarioFiles: [],
      regressions: 'regressions',
    });
    const { result } = await runCase(c!, 'reference', out);

    expect(runPassed(result)).toBe(true);
    expect(runPassed({ ...result, pass: false })).toBe(false);
    expect(runPassed({ ...result, mismatches: ['state: expected blocked'] })).toBe(false);
  });
});
