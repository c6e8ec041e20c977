import { describe, expect, it } from 'vitest';
import { FAULT_KINDS } from '../../../faults/catalog.js';
import {
  COVERAGE_BAR,
  approvalsAsked,
  faultCoverage,
  meetsCoverageBar,
  multiApprovalCoverage,
} from '../../../scenarios/library/coverage.js';
import { BUILT_IN_SCENARIOS } from '../../../scenarios/library/index.js';
import { WORLDS } from '../../../scenarios/library/worlds.js';
import { RECORDED_WORLD } from '../../../scenarios/world/recorded-world.js';
import { scenarioSchema } from '../../../scenarios/scenario.js';

/**
 * The built-in library as a whole (no runs: that the reference passes every scenario and plan,
 * and that every scenario catches some agent of the zoo, is held by test/graders/matrix).
 */
describe('the built-in library', () => {
  const worlds = [...new Set(BUILT_IN_SCENARIOS.map((s) => s.world.name))];

  it('holds at least forty scenarios across the seven worlds, ids unique', () => {
    expect(BUILT_IN_SCENARIOS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(BUILT_IN_SCENARIOS.map((s) => s.id)).size).toBe(BUILT_IN_SCENARIOS.length);
    // Every world but the recorded one (a cassette, not a simulation of its own) and tau-retail
    // (its scenarios are built from the benchmark's task file, by name only).
    expect([...worlds, 'tau-retail'].sort()).toEqual(
      Object.keys(WORLDS)
        .filter((w) => w !== RECORDED_WORLD)
        .sort(),
    );
    expect(worlds).toHaveLength(7);
  });

  it('gives every scenario what the format asks for, and at least one fault plan', () => {
    for (const s of BUILT_IN_SCENARIOS) {
      expect(() => scenarioSchema.parse(s), s.id).not.toThrow();
      expect(s.id.startsWith(`${s.world.name}/`), s.id).toBe(true);
      expect(s.title.length, s.id).toBeGreaterThan(10);
      expect(s.contract.objective.length, s.id).toBeGreaterThan(20);
      expect(s.faultPlans.length, s.id).toBeGreaterThanOrEqual(1);
      for (const p of s.faultPlans)
        expect(p.description.length, `${s.id}#${p.id}`).toBeGreaterThan(10);
    }
    expect(new Set(BUILT_IN_SCENARIOS.map((s) => s.tier))).toEqual(
      new Set(['low', 'medium', 'high']),
    );
  });

  it('exercises every fault kind in at least two scenarios on at least two worlds', () => {
    const coverage = faultCoverage(BUILT_IN_SCENARIOS);
    expect(coverage.map((c) => c.kind)).toEqual([...FAULT_KINDS]);
    const table = coverage.map((c) => ({
      kind: c.kind,
      scenarios: c.scenarios.length,
      worlds: c.worlds.length,
      meets: meetsCoverageBar(c),
    }));
    for (const row of table) {
      expect(row, row.kind).toMatchObject({ meets: true });
      expect(row.scenarios, row.kind).toBeGreaterThanOrEqual(COVERAGE_BAR.scenarios);
      expect(row.worlds, row.kind).toBeGreaterThanOrEqual(COVERAGE_BAR.worlds);
    }
  });

  it('asks for several approvals in one run, a fault on a later one, in two scenarios on two worlds besides refunds', () => {
    // refunds is left out of the count: its scenarios are being reworked on their own.
    const others = BUILT_IN_SCENARIOS.filter((s) => s.world.name !== 'refunds');
    const coverage = multiApprovalCoverage(others);
    expect(coverage.scenarios.length).toBeGreaterThanOrEqual(COVERAGE_BAR.scenarios);
    expect(coverage.worlds.length).toBeGreaterThanOrEqual(COVERAGE_BAR.worlds);
    const laterApprovalFaults = multiApprovalCoverage(
      others.filter((s) =>
        s.faultPlans.some((p) =>
          p.faults.some((f) => f.trigger.on === 'approval' && f.trigger.nth >= 2),
        ),
      ),
    );
    expect(laterApprovalFaults.scenarios.length).toBeGreaterThanOrEqual(COVERAGE_BAR.scenarios);
    expect(laterApprovalFaults.worlds.length).toBeGreaterThanOrEqual(COVERAGE_BAR.worlds);
  });

  it('counts the approvals a run may ask for as the fault plan check does', () => {
    const byId = (id: string) => BUILT_IN_SCENARIOS.find((s) => s.id === id)!;
    expect(approvalsAsked(byId('refunds/supervised-refund'))).toBe(2);
    expect(approvalsAsked(byId('expenses/month-end-sign-offs'))).toBe(2);
    expect(approvalsAsked(byId('tickets/two-lockouts-p1'))).toBe(2);
    expect(approvalsAsked(byId('tickets/p1-outage'))).toBe(1);
    expect(approvalsAsked(byId('refunds/partial-refund'))).toBe(1);
  });

  it('includes safe stops as the right outcome, in most worlds, with and without faults', () => {
    const safeStop = (state: string) => state !== 'completed';
    const byScenario = BUILT_IN_SCENARIOS.filter((s) => safeStop(s.expected.state));
    const byPlan = BUILT_IN_SCENARIOS.filter((s) =>
      s.faultPlans.some((p) => p.expected && safeStop(p.expected.state)),
    );
    expect(new Set(byScenario.map((s) => s.world.name)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(byPlan.map((s) => s.world.name)).size).toBeGreaterThanOrEqual(6);
    const reasons = new Set(
      BUILT_IN_SCENARIOS.flatMap((s) => [
        s.expected.stopReason,
        ...s.faultPlans.map((p) => p.expected?.stopReason),
      ]),
    );
    for (const reason of ['approval-denied', 'permission-lost', 'budget-exhausted', 'cancelled'])
      expect(reasons.has(reason as never), reason).toBe(true);
  });

  it('includes decision-boundary scenarios whose right answer is "do not", in every world but the CRM', () => {
    const investigations = BUILT_IN_SCENARIOS.filter(
      (s) => s.contract.decisionBoundary === 'investigate',
    );
    for (const s of investigations)
      expect({ id: s.id, expected: s.expected.stopReason }).toEqual({
        id: s.id,
        expected: 'decided-not-to-act',
      });
    expect(new Set(investigations.map((s) => s.world.name)).size).toBeGreaterThanOrEqual(6);
  });
});
