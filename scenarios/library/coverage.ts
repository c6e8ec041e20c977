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
