import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectQuickMatrixRuns } from '../../bin/commands/matrix.js';
import { FINDING_CODES } from '../../graders/grade.js';
import {
  DETECTION_BAR,
  DETECTION_BAR_BY_AGENT,
  detectionBar,
  detectionMatrix,
  EXPECTED_DETECTIONS,
  type MatrixReport,
  type MatrixRun,
} from '../../graders/matrix.js';
import { MUTANTS, ZOO } from '../../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';

/**
 * The detection matrix, run for real: the reference over every built-in scenario and plan,
 * each mutant until its detection bar is met, each scenario until some agent fails it (what
 * `faultline matrix --quick` runs; the command without it runs every agent everywhere). A
 * grader that stops catching its mutant fails here.
 */
describe('detection matrix', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'faultline-matrix-'));
  let runs: MatrixRun[];
  let report: MatrixReport;

  // The reference alone makes ~190 runs: a minute or two on a busy machine.
  beforeAll(async () => {
    runs = await collectQuickMatrixRuns(ZOO, BUILT_IN_SCENARIOS, outDir);
    report = detectionMatrix(runs);
  }, 600_000);
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  it('expects a detection for every mutant of the zoo, each a black-box code', () => {
    expect(Object.keys(EXPECTED_DETECTIONS).sort()).toEqual(Object.keys(MUTANTS).sort());
    for (const code of Object.values(EXPECTED_DETECTIONS))
      expect(FINDING_CODES[code].visibility).toBe('black-box');
  });

  it('holds: no problems', () => {
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it.each(Object.entries(EXPECTED_DETECTIONS))(
    '%s fails its dimension with %s on enough scenarios and worlds',
    (agent, code) => {
      const d = report.detections.find((x) => x.agent === agent);
      const bar = detectionBar(agent);
      expect(d?.code).toBe(code);
      expect(d?.scenarios.length).toBeGreaterThanOrEqual(bar.scenarios);
      expect(d?.worlds.length).toBeGreaterThanOrEqual(bar.worlds);
    },
  );

  it('holds every mutant to two scenarios in two worlds, except where a reason is given', () => {
    for (const agent of Object.keys(EXPECTED_DETECTIONS)) {
      const own = DETECTION_BAR_BY_AGENT[agent];
      if (!own) expect(detectionBar(agent)).toEqual(DETECTION_BAR);
      else {
        expect(own.scenarios).toBeGreaterThanOrEqual(DETECTION_BAR.scenarios);
        expect(own.why).not.toBe('');
      }
    }
    expect(Object.keys(DETECTION_BAR_BY_AGENT)).toEqual(['misattributes-sources']);
    expect(detectionBar('misattributes-sources')).toEqual({ scenarios: 2, worlds: 1 });
  });

  it('breaks when a mutant held to its own bar is caught on fewer scenarios than it asks', () => {
    const hits = runs.filter(
      (r) =>
        r.agent === 'misattributes-sources' &&
        r.grades.grades.outcome.findings.some((f) => f.code === 'misattributed-claim'),
    );
    const caughtOnce = runs.filter(
      (r) => !hits.includes(r) || r.scenarioId === hits[0]?.scenarioId,
    );

    const missed = detectionMatrix(caughtOnce);

    expect(missed.problems).toContain(
      'misattributes-sources: expected outcome to fail with misattributed-claim on ≥2 scenarios in ≥1 world(s); got 1 scenario(s) in 1 world(s)',
    );
  });

  it('the reference passes every dimension of every run with no finding', () => {
    const ref = runs.filter((r) => r.agent === 'reference');
    expect(ref.length).toBe(BUILT_IN_SCENARIOS.reduce((n, s) => n + 1 + s.faultPlans.length, 0));
    for (const r of ref) {
      const found = Object.values(r.grades.grades).flatMap((g) => g.findings.map((f) => f.code));
      expect({ run: `${r.scenarioId}/${r.faultPlanId}`, found }).toEqual({
        run: `${r.scenarioId}/${r.faultPlanId}`,
        found: [],
      });
    }
  });

  it('the naive chat loop fails runs too', () => {
    expect(report.failing['naive-chat-loop']?.failed).toBeGreaterThan(0);
  });

  it('every scenario is failed by some agent of the zoo, on some plan', () => {
    for (const s of BUILT_IN_SCENARIOS) {
      const caught = runs.filter(
        (r) => r.scenarioId === s.id && r.agent !== 'reference' && !r.grades.pass,
      );
      expect({ scenario: s.id, caught: caught.length > 0 }).toEqual({
        scenario: s.id,
        caught: true,
      });
    }
  });

  it('breaks when a scenario catches no agent', () => {
    const [first] = BUILT_IN_SCENARIOS;
    const lenient = runs.map((r) =>
      r.scenarioId === first!.id ? { ...r, grades: { ...r.grades, pass: true } } : r,
    );
    expect(detectionMatrix(lenient).problems).toContain(
      `${first!.id}: every agent of the zoo passes every plan, so it catches none`,
    );
  });

  it('breaks when a detection is missing or the reference fails', () => {
    // Drop every run where no-reconcile was caught: the matrix must say so.
    const blind = runs.filter(
      (r) =>
        r.agent !== 'no-reconcile' ||
        !r.grades.grades.recovery.findings.some((f) => f.code === 'unreconciled-retry'),
    );
    const missed = detectionMatrix(blind);
    expect(missed.ok).toBe(false);
    expect(missed.problems.join('\n')).toMatch(/no-reconcile: expected recovery to fail/);

    const failing = runs.find((r) => r.agent === 'no-reconcile' && !r.grades.pass);
    expect(failing).toBeDefined();
    const impostor = detectionMatrix([...runs, { ...failing!, agent: 'reference' }]);
    expect(impostor.problems.some((p) => p.startsWith('reference on'))).toBe(true);
  });
});
