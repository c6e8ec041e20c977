import type { Fault, FaultPlan, Trigger } from '../faults/catalog.js';
import { formatDuration } from '../reports/duration.js';

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** A trigger in words: "the 2nd call of issue_refund", "at 1h 5m of virtual time". */
export function describeTrigger(trigger: Trigger): string {
  switch (trigger.on) {
    case 'call':
      return `the ${ordinal(trigger.nth)} call of ${trigger.tool}`;
    case 'step':
      return `the ${ordinal(trigger.step)} tool call of the run`;
    case 'first-write':
      return 'the first write';
    case 'write':
      return `the ${ordinal(trigger.nth)} write`;
    case 'applied-write':
      return `right after the world applied the ${ordinal(trigger.nth)} write${trigger.tool ? ` of ${trigger.tool}` : ''}`;
    case 'time':
      return `${formatDuration(trigger.atMs)} into the run`;
    case 'probability':
      return `each call${trigger.tool ? ` of ${trigger.tool}` : ''} with probability ${trigger.p}`;
    case 'probe':
      return `the ${ordinal(trigger.nth)} time the runtime reaches ${trigger.probe}${trigger.operation ? ` of ${trigger.operation}` : ''}`;
    case 'proposal':
      return `the ${ordinal(trigger.nth)} planner proposal`;
    case 'approval':
      return `the ${ordinal(trigger.nth)} approval request`;
  }
}

/** When a fault acting at a moment (not on a call) happens. */
function at(trigger: Trigger): string {
  return trigger.on === 'time' ? describeTrigger(trigger) : `at ${describeTrigger(trigger)}`;
}

/**
 * One fault in words, as a person would say what went wrong.
 *
 * @example
 * ```ts
 * describeFault({ kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } });
 * // 'the 1st call of issue_refund is applied, but its reply is lost'
 * ```
 */
export function describeFault(fault: Fault): string {
  const on = describeTrigger(fault.trigger);
  switch (fault.kind) {
    case 'timeout':
      return `${on} never reaches the world, and no reply comes`;
    case 'transient':
      return `${on} fails with a transient error`;
    case 'rate-limit':
      return `${on} is rate-limited for ${formatDuration(fault.retryAfterMs)}`;
    case 'malformed-reply':
      return `${on} is applied, but its reply is garbled`;
    case 'unavailable':
      return `the dependency is unavailable for ${formatDuration(fault.windowMs)} from ${on}`;
    case 'lost-ack':
      return `${on} is applied, but its reply is lost`;
    case 'duplicate-delivery':
      return `${on} is delivered to the world twice`;
    case 'late-reply':
      return `${on} reaches the world ${formatDuration(fault.delayMs)} late`;
    case 'revoked-permission':
      return `permission to call ${fault.tool} is revoked ${at(fault.trigger)}`;
    case 'expired-credential':
      return `the run's credential expires ${at(fault.trigger)}`;
    case 'stale-record':
      return `someone else makes the change ${fault.change} ${JSON.stringify(fault.params)} ${at(fault.trigger)}`;
    case 'hostile-document':
      return `what ${fault.tool} returns carries a planted instruction to call ${fault.canary.tool}, ${at(fault.trigger)}`;
    case 'unapplied-write':
      return `${on} is acknowledged as applied, but the world drops the change`;
    case 'missing-evidence':
      return `${on} returns nothing`;
    case 'conflicting-evidence':
      return `${on} returns ${JSON.stringify(fault.replace)}`;
    case 'approval-denied':
      return `${on} is denied`;
    case 'approval-delayed':
      return `${on} is answered ${formatDuration(fault.delayMs)} late`;
    case 'cancellation':
      return `the operator cancels the run ${at(fault.trigger)}`;
    case 'invalid-output':
      return `${on} is not a valid proposal`;
    case 'context-compaction':
      return `the planner's context is compacted before ${on}`;
    case 'model-swap':
      return `the model is swapped for ${fault.model} at ${on}`;
    case 'crash':
      return `the process crashes (${fault.mode}) ${at(fault.trigger)}`;
  }
}

/** A plan in words, one numbered line per fault ("no faults" for none). */
export function describePlan(plan: FaultPlan): string[] {
  if (plan.faults.length === 0) return ['no faults'];
  return plan.faults.map((f, i) => `${i + 1}. ${f.kind}: ${describeFault(f)}`);
}
