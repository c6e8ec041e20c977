import { beforeAll, describe, expect, it } from 'vitest';
import { suiteMetrics } from '../../graders/metrics.js';
import { toGradedRun } from '../../reports/graded.js';
import {
  jsonReport,
  renderJson,
  REPORT_FORMAT,
  REPORT_VERSION,
  reportSchema,
} from '../../reports/json.js';
import { type RunResult } from '../../reports/results.js';
import { makeResultSet } from '../support/result-sets.js';
import { tempDir } from '../support/cli.js';

/** The no-reconcile mutant under the partial refund's lost-ack plans, two trials each. */
let results: RunResult[];

beforeAll(async () => {
  results = await makeResultSet(tempDir('json'), { agent: 'no-reconcile', trials: 2 });
});

describe('the json reporter', () => {
  it('renders a report that its own schema accepts', () => {
    const parsed = reportSchema.safeParse(JSON.parse(renderJson({ results, k: 2 })));

    expect(parsed.success, JSON.stringify(parsed.error?.issues[0])).toBe(true);
    expect(parsed.data).toMatchObject({ format: REPORT_FORMAT, version: REPORT_VERSION, k: 2 });
  });

  it('round-trips: the records come back equal, and render to the same text again', () => {
    const text = renderJson({ results, k: 2 });
    const report = reportSchema.parse(JSON.parse(text));

    expect(report.results).toEqual(results);
    expect(renderJson({ results: report.results, k: report.k })).toBe(text);
  });

  it('carries the suite metrics of the stored runs, with pass^k per dimension', () => {
    const report = jsonReport({ results, k: 2 });
    const pass = report.metrics.overall.passHatK;

    expect(report.metrics).toEqual(suiteMetrics(results.map(toGradedRun), { k: 2 }));
    expect(pass.k).toBe(2);
    expect(pass.groups).toBe(2);
    expect(pass.overall).toEqual({ pass1: 0.5, passK: 0.5 });
    expect(pass.byDimension.recovery.pass1).toBe(0.5);
    expect(pass.byDimension.policy).toEqual({ pass1: 1, passK: 1 });
    expect(report.metrics.overall.duplicateSideEffects).toBe(2);
  });

  it('orders the records by case index, whatever order they came in', () => {
    const report = jsonReport({ results: [...results].reverse(), k: 1 });

    expect(report.results.map((r) => r.index)).toEqual([0, 1, 2, 3]);
  });

  it('refuses what is not a report of this version', () => {
    const report = JSON.parse(renderJson({ results, k: 2 })) as Record<string, unknown>;
    const metrics = report['metrics'] as Record<string, unknown>;

    expect(reportSchema.safeParse({ ...report, version: 2 }).success).toBe(false);
    expect(reportSchema.safeParse({ ...report, format: 'other' }).success).toBe(false);
    expect(reportSchema.safeParse({ ...report, k: 0 }).success).toBe(false);
    expect(reportSchema.safeParse({ ...report, extra: true }).success).toBe(false);
    const { overall: _overall, ...noOverall } = metrics;
    expect(reportSchema.safeParse({ ...report, metrics: noOverall }).success).toBe(false);
    expect(
      reportSchema.safeParse({ ...report, results: [{ ...results[0], pass: 'yes' }] }).success,
    ).toBe(false);
  });
});
