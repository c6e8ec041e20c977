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
    case 'write':
      return `fires on write ${trigger.nth}, and ${mode} mode sends none`;
    case 'applied-write':
      return `fires after the world applied write ${trigger.nth}, and ${mode} mode sends none`;
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
  calls: readonly { tool: string; toolCall: number; step: number; at: number; write: boolean }[];
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
        at: c.at,
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
    case 'write':
      return calls.filter((c) => c.write).length >= trigger.nth
        ? null
        : `fires on write ${trigger.nth}, and the fault-free run in ${mode} mode makes ${calls.filter((c) => c.write).length}`;
    case 'probability':
      return calls.some((c) => trigger.tool === undefined || c.tool === trigger.tool)
        ? null
        : `fires on calls of ${trigger.tool ?? 'any tool'}, and the fault-free run in ${mode} mode makes none`;
    case 'time':
      // A timer at or before the run's last instant fires; only one past it never does.
      return trigger.atMs <= reach.virtualMs
        ? null
        : `fires at ${trigger.atMs} ms, and the fault-free run in ${mode} mode ends at ${reach.virtualMs} ms`;
    // Whether a write is applied is not in the reach: not certain, so not ruled out.
    case 'applied-write':
    case 'probe':
    case 'proposal':
    case 'approval':
      return null;
  }
}

/** A stop a run keeps in shadow or recommend mode: its state and reason, with no effect. */
export interface KeptStop {
  state: 'failed' | 'blocked';
  stopReason: 'budget-exhausted' | 'permission-lost';
}

/**
 * The stop that a run of `plan` in shadow or recommend mode must still make, or null when it
 * must complete (with no effect). Only stops that rest on no write, approval or wait are kept:
 * - `budget-exhausted` with a model-spend cap: the planner proposes every operation in these
 *   modes too, so its spend still reaches the cap (a cap on calls or writes is not kept: the
 *   mode sends fewer);
 * - `permission-lost` from an expired credential (or a permission revoked on a read) that the
 *   fault-free run in the mode reaches, with a call the dead credential refuses at or after
 *   it: the run must stop there, never read on.
 * Anything else the scenario expected (an approval denied, a write's failed precondition or
 * verification) needs a step the mode leaves out, so the run completes.
 *
 * @example
 * ```ts
 * const stop = stopKeptInMode(scenario, plan, reachOf(faultFree.trajectory));
 * const expected = stop ? { ...stop, world: noEffect } : { state: 'completed', world: noEffect };
 * ```
 */
export function stopKeptInMode(
  scenario: Scenario,
  plan: FaultPlan,
  reach: RunReach | undefined,
): KeptStop | null {
  const expected = plan.expected ?? scenario.expected;
  if (expected.stopReason === 'budget-exhausted' && expected.state === 'failed')
    return scenario.contract.budgets.costUsd > 0
      ? { state: 'failed', stopReason: 'budget-exhausted' }
      : null;
  if (expected.stopReason !== 'permission-lost' || expected.state !== 'blocked' || !reach)
    return null;
  const refused = plan.faults.some((fault) => {
    if (fault.kind !== 'expired-credential' && fault.kind !== 'revoked-permission') return false;
    const from = firstHit(fault.trigger, reach);
    if (from < 0) return false;
    return reach.calls
      .slice(from)
      .some((c) => !c.write && (fault.kind === 'expired-credential' || c.tool === fault.tool));
  });
  return refused ? { state: 'blocked', stopReason: 'permission-lost' } : null;
}

/**
 * The index of the first call of `reach` on which (or before which) a world fault with this
 * trigger fires, or -1 when that is not certain.
 */
function firstHit(trigger: Trigger, reach: RunReach): number {
  const { calls } = reach;
  switch (trigger.on) {
    case 'call':
      return calls.findIndex((c) => c.tool === trigger.tool && c.toolCall === trigger.nth);
    case 'step':
      return calls.findIndex((c) => c.step === trigger.step);
    case 'time':
      // Strictly after: a call in the timer's own instant may be served before it fires.
      return calls.findIndex((c) => c.at > trigger.atMs);
    case 'write': {
      let seen = 0;
      return calls.findIndex((c) => c.write && ++seen === trigger.nth);
    }
    case 'first-write':
    case 'probability':
    case 'applied-write':
    case 'probe':
    case 'proposal':
    case 'approval':
      return -1;
  }
}
