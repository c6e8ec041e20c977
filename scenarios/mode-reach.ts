import type { FaultPlan, Trigger } from '../faults/catalog.js';
import type { AutonomyMode } from '../runtime/contract.js';
import type { Scenario } from './scenario.js';
import type { World } from './world/world.js';

/** Modes in which no write is sent and no approval is asked: the agent only reads and proposes. */
const PROPOSING_MODES: readonly AutonomyMode[] = ['shadow', 'recommend'];

/**
 * Why each fault of a plan can never fire when the scenario runs in its contract's autonomy
 * mode (empty: every fault can). Only facts of the mode count, never guesses about a run's
 * path: in shadow and recommend mode no write is sent, no approval is asked and no crash probe
 * past the policy gate is reached (only `before-intent` lies before it). A plan written for a
 * supervised scenario that fails its refund's approval proves nothing in shadow mode; running
 * it would only report a fault that never fired.
 *
 * @example
 * ```ts
 * const reasons = unreachableInMode(inShadow, plan, world);
 * if (reasons.length > 0) console.log(`skipped: ${reasons.join('; ')}`);
 * ```
 */
export function unreachableInMode(
  scenario: Scenario,
  plan: FaultPlan,
  world: World<unknown>,
): string[] {
  const mode = scenario.contract.autonomy;
  if (!PROPOSING_MODES.includes(mode)) return [];
  const writes = new Set(
    world
      .tools()
      .filter((t) => t.kind === 'write')
      .map((t) => t.name),
  );
  return plan.faults.flatMap((fault, i) => {
    const why = neverFires(fault.trigger, writes, mode);
    return why === null ? [] : [`faults[${i}] (${fault.kind}) ${why}`];
  });
}

function neverFires(trigger: Trigger, writes: ReadonlySet<string>, mode: string): string | null {
  switch (trigger.on) {
    case 'first-write':
      return `fires on the first write, and ${mode} mode sends none`;
    case 'call':
    case 'probability':
      return trigger.tool !== undefined && writes.has(trigger.tool)
        ? `fires on ${trigger.tool}, a write, which ${mode} mode never sends`
        : null;
    case 'approval':
      return `fires on approval ${trigger.nth}, and ${mode} mode asks for none`;
    case 'probe':
      return trigger.probe === 'before-intent'
        ? null
        : `fires at the ${trigger.probe} crash probe, past the policy gate that ${mode} mode stops every write at`;
    case 'step':
    case 'time':
    case 'proposal':
      return null;
  }
}
