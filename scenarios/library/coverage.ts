import { FAULT_KINDS, type FaultKind } from '../../faults/catalog.js';
import type { Scenario } from '../scenario.js';

/** How often a library exercises a fault kind, and where. */
export interface KindCoverage {
  kind: FaultKind;
  /** Scenarios with at least one plan that injects the kind, by id. */
  scenarios: string[];
  /** The worlds those scenarios run on. */
  worlds: string[];
}

/**
 * The bar the built-in library is held to: each fault kind in at least two scenarios, on at
 * least two different worlds, so no kind is tested in one setting only.
 */
export const COVERAGE_BAR = { scenarios: 2, worlds: 2 } as const;

/** For every fault kind of the catalogue (in catalogue order), the scenarios and worlds that inject it. */
export function faultCoverage(scenarios: readonly Scenario[]): KindCoverage[] {
  return FAULT_KINDS.map((kind) => {
    const using = scenarios.filter((s) =>
      s.faultPlans.some((plan) => plan.faults.some((f) => f.kind === kind)),
    );
    return {
      kind,
      scenarios: using.map((s) => s.id),
      worlds: [...new Set(using.map((s) => s.world.name))],
    };
  });
}

/** Whether a kind's coverage meets {@link COVERAGE_BAR}. */
export function meetsCoverageBar(coverage: KindCoverage): boolean {
  return (
    coverage.scenarios.length >= COVERAGE_BAR.scenarios &&
    coverage.worlds.length >= COVERAGE_BAR.worlds
  );
}

/**
 * How many approvals one run of the scenario may ask for: one per write its blueprint makes
 * whose tool needs an approval under the contract (every write, in supervised mode) — the count
 * an `approval` trigger's `nth` is checked against.
 */
export function approvalsAsked(scenario: Scenario): number {
  return scenario.blueprint.operations.filter((o) => {
    if (o.kind !== 'write') return false;
    if (scenario.contract.autonomy === 'supervised') return true;
    return (scenario.contract.authority.tools[o.tool]?.approval ?? 'never') !== 'never';
  }).length;
}

/**
 * Where a library asks for several approvals in one run — the case where a token granted for
 * one write must not serve another, and a fault can hit the second approval after the first
 * was used. Held to the same bar of two scenarios on two worlds.
 */
export function multiApprovalCoverage(scenarios: readonly Scenario[]): {
  scenarios: string[];
  worlds: string[];
} {
  const using = scenarios.filter((s) => approvalsAsked(s) >= 2);
  return {
    scenarios: using.map((s) => s.id),
    worlds: [...new Set(using.map((s) => s.world.name))],
  };
}
