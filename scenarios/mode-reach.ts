import type { FaultPlan, Trigger } from '../faults/catalog.js';
import type { AutonomyMode } from '../runtime/contract.js';
import type { Scenario } from './scenario.js';
import type { Trajectory } from './trajectory.js';
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

/**
 * How far a fault-free run went: the calls it made (in order) and the virtual time it ended at.
 * A fault's trigger that lies beyond it can never fire in a run of the same scenario, mode and
 * seed, as long as no other fault of the plan fires first: until a fault fires, a run is the
 * fault-free run (one seed reproduces a run).
 */
export interface RunReach {
  calls: readonly { tool: string; toolCall: number; step: number; write: boolean }[];
  virtualMs: number;
}

/** The reach of a fault-free run, from its trajectory. */
export function reachOf(trajectory: Trajectory): RunReach {
  const writes = new Set(trajectory.tools.filter((t) => t.kind === 'write').map((t) => t.name));
  return {
    calls: trajectory.calls
      .filter((c) => c.echoOf === undefined)
      .map((c) => ({
        tool: c.tool,
        toolCall: c.toolCall,
        step: c.step,
        write: writes.has(c.tool),
      })),
    virtualMs: trajectory.times.virtualMs,
  };
}

/**
 * Why a plan cannot apply to a run that reaches only `reach` (the same scenario, mode and seed
 * run fault-free): one reason per fault, but only when every fault of the plan lies beyond the
 * reach. If any fault can fire, the run leaves the fault-free path there and what follows is
 * unknown, so the plan is kept and every fault stays required to fire. Triggers a fault-free
 * run does not record (probes, proposals, approvals) count as reached: only
 * `unreachableInMode` rules on them, from facts of the mode.
 *
 * @example
 * ```ts
 * const reasons = beyondReach(plan, reachOf(faultFree.trajectory), 'shadow');
 * if (reasons.length > 0) console.log(`not applicable: ${reasons.join('; ')}`);
 * ```
 */
export function beyondReach(plan: FaultPlan, reach: RunReach, mode: string): string[] {
  const reasons: string[] = [];
  for (const [i, fault] of plan.faults.entries()) {
    const why = notReached(fault.trigger, reach, mode);
    if (why === null) return [];
    reasons.push(`faults[${i}] (${fault.kind}) ${why}`);
  }
  return reasons;
}

function notReached(trigger: Trigger, reach: RunReach, mode: string): string | null {
  const { calls } = reach;
  switch (trigger.on) {
    case 'step':
      return calls.some((c) => c.step >= trigger.step)
        ? null
        : `fires at step ${trigger.step}, and the fault-free run in ${mode} mode ends after ${calls.length} call(s)`;
    case 'call':
      return calls.some((c) => c.tool === trigger.tool && c.toolCall >= trigger.nth)
        ? null
        : `fires on call ${trigger.nth} of ${trigger.tool}, and the fault-free run in ${mode} mode makes ${calls.filter((c) => c.tool === trigger.tool).length}`;
    case 'first-write':
      return calls.some((c) => c.write)
        ? null
        : `fires on the first write, and the fault-free run in ${mode} mode makes none`;
    case 'probability':
      return calls.some((c) => trigger.tool === undefined || c.tool === trigger.tool)
        ? null
        : `fires on calls of ${trigger.tool ?? 'any tool'}, and the fault-free run in ${mode} mode makes none`;
    case 'time':
      // A timer at or before the run's last instant fires; only one past it never does.
      return trigger.atMs <= reach.virtualMs
        ? null
        : `fires at ${trigger.atMs} ms, and the fault-free run in ${mode} mode ends at ${reach.virtualMs} ms`;
    case 'probe':
    case 'proposal':
    case 'approval':
      return null;
  }
}
