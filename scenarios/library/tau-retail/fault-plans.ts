import type { FaultPlanInput } from '../../../faults/catalog.js';
import type { ScenarioInput } from '../../scenario.js';

/** Fault plans derived from a task's gold path (see README-SECTION). */
export function derivedFaultPlans(_scenario: ScenarioInput, _goldHash: string): FaultPlanInput[] {
  return [];
}
