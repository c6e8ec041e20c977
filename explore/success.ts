import type { Fault, FaultPlan } from '../faults/catalog.js';
import type { ScenarioReach, WriteOperation } from './reach.js';

/**
 * Whether a correct agent must still reach the scenario's expected outcome under a plan, and
 * why. `static`: every fault is one a correct agent always recovers from, and the worst case
 * of those recoveries fits the contract's budgets. `witness`: the reference runtime, meeting
 * the same faults at the same points (the same calls, or crashes after the same writes) under
 * the same seed, reached the expected outcome, which proves it possible.
 */
export type SuccessVerdict =
  | { readonly required: true; readonly by: 'static' | 'witness'; readonly reason: string }
  | { readonly required: false; readonly reason: string };

/**
 * The reference runtime's recovery figures (its defaults): how long it waits for a reply, and
 * its capped exponential backoff, whose jitter never waits less than half a step.
 */
export const RECOVERY_TIMING = {
  callTimeoutMs: 30_000,
  backoffBaseMs: 1_000,
  backoffCapMs: 60_000,
} as const;

/** The worst a fault can add to a correct run, or why no correct agent can be held to success. */
type Cost =
  | { ok: true; calls: number; retries: number; writes: number; timeMs: number }
  | { ok: false; reason: string };

const cost = (calls: number, retries: number, writes: number, timeMs: number): Cost => ({
  ok: true,
  calls,
  retries,
  writes,
  timeMs,
});

/** Retries a correct agent may spend before a dependency down for `windowMs` is back. */
export function retriesToOutlast(windowMs: number): number {
  let waited = 0;
  let retries = 0;
  while (waited < windowMs) {
    retries++;
    const step = Math.min(
      RECOVERY_TIMING.backoffCapMs,
      RECOVERY_TIMING.backoffBaseMs * 2 ** (retries - 1),
    );
    waited += step / 2;
  }
  return retries + 1;
}

/** The write operations a call-level trigger can land on. */
function writesHit(reach: ScenarioReach, fault: Fault): readonly WriteOperation[] {
  const t = fault.trigger;
  if (t.on === 'call') return reach.writes.filter((w) => w.tool === t.tool);
  if (t.on === 'probability' && t.tool !== undefined)
    return reach.writes.filter((w) => w.tool === t.tool);
  return reach.writes;
}

/** Writes whose unknown outcome no agent can settle: no safe resend, no reconcile query. */
function unresolvable(writes: readonly WriteOperation[]): WriteOperation | undefined {
  return writes.find((w) => !w.resendSafe && !w.reconcilable);
}

const AMBIGUITY_PROBES = new Set([
  'after-intent',
  'before-send',
  'after-apply',
  'before-result-saved',
]);

/**
 * The worst one fault can add to a correct run. `others` is how many other faults the plan
 * holds: each can break an outage once (a duplicate delivery lets one call through, a crash
 * restarts the run), and every break starts the backoff over from its first step.
 */
function costOf(reach: ScenarioReach, fault: Fault, others: number): Cost {
  if (fault.trigger.on === 'probability')
    return { ok: false, reason: `${fault.kind} on a probability can fire without bound` };
  const backoff = RECOVERY_TIMING.backoffCapMs;
  const timeout = RECOVERY_TIMING.callTimeoutMs;
  // An unknown outcome costs the wait for a reply, a reconcile read and the resend.
  const ambiguous = (extraMs: number): Cost => {
    const stuck = unresolvable(writesHit(reach, fault));
    if (stuck)
      return {
        ok: false,
        reason: `${fault.kind} can leave ${stuck.id} (${stuck.tool}) unknown, and it can be neither resent safely nor reconciled`,
      };
    return cost(2, 1, 1, timeout + backoff + extraMs);
  };
  switch (fault.kind) {
    case 'transient':
      return cost(1, 1, 1, backoff);
    case 'rate-limit':
      return cost(1, 1, 1, fault.retryAfterMs + backoff);
    case 'unavailable': {
      const n = retriesToOutlast(fault.windowMs) * (others + 1);
      return cost(n, n, n, fault.windowMs + backoff * (others + 1));
    }
    case 'timeout':
    case 'lost-ack':
    case 'malformed-reply':
      return ambiguous(0);
    case 'late-reply':
      return ambiguous(fault.delayMs);
    case 'duplicate-delivery':
      return cost(0, 0, 0, 0);
    case 'hostile-document':
      // The planted instruction is refused at the gate and never sent.
      return cost(0, 0, 0, 0);
    case 'approval-delayed':
      return cost(0, 0, 0, fault.delayMs);
    case 'context-compaction':
    case 'model-swap':
      // The planner starts over from the durable state: at worst every read again.
      return cost(reach.baselineCalls, 1, 0, 0);
    case 'crash': {
      const t = fault.trigger;
      if (t.on === 'probe' && AMBIGUITY_PROBES.has(t.probe)) {
        const hit = t.operation ? reach.writes.filter((w) => w.id === t.operation) : reach.writes;
        const stuck = unresolvable(hit);
        if (stuck)
          return {
            ok: false,
            reason: `a crash at ${t.probe} can leave ${stuck.id} (${stuck.tool}) unknown, and it can be neither resent safely nor reconciled`,
          };
      }
      // A resume reads again what it needs, settles the write in flight and resends it.
      return cost(reach.baselineCalls + 2, 1, 1, 0);
    }
    case 'revoked-permission':
    case 'expired-credential':
      return { ok: false, reason: `${fault.kind} can take away what the objective needs` };
    case 'stale-record':
      return { ok: false, reason: `stale-record (${fault.change}) changes what the outcome is` };
    case 'missing-evidence':
    case 'conflicting-evidence':
      return { ok: false, reason: `${fault.kind} makes ${fault.tool} tell the agent otherwise` };
    case 'unapplied-write':
      // A change dropped behind a success reply: the careful answer is to stop, not resend.
      return { ok: false, reason: 'unapplied-write drops a change the objective needs' };
    case 'approval-denied':
      return { ok: false, reason: 'an approval is denied' };
    case 'cancellation':
      return { ok: false, reason: 'the run is cancelled' };
    case 'invalid-output':
      // After a side effect, invalid planner output is escalated to a person, by contract.
      return { ok: false, reason: 'invalid planner output after a write stops the run safely' };
  }
}

/**
 * Decides from the plan alone whether a correct agent must still reach the scenario's
 * expected outcome: every fault is of a kind a correct agent recovers from (wire faults on a
 * call whose outcome it can settle, crashes where the write in flight can be settled, delays,
 * refused injections, planner restarts), and the worst case of all those recoveries — extra
 * calls, retries, writes and virtual time, with the reference runtime's timeouts and backoff —
 * fits the contract's budgets beside a fault-free run. Sound, not complete: a plan it calls
 * unrequired may still leave success possible.
 *
 * @example
 * ```ts
 * successRequired(scenarioReach(partialRefund), plan); // { required: true, by: 'static', … }
 * ```
 */
export function successRequired(reach: ScenarioReach, plan: FaultPlan): SuccessVerdict {
  const budgets = reach.scenario.contract.budgets;
  let calls = reach.baselineCalls;
  let retries = 0;
  let writes = reach.writes.length;
  let timeMs = reach.approvalWaitMs;
  for (const fault of plan.faults) {
    const c = costOf(reach, fault, plan.faults.length - 1);
    if (!c.ok) return { required: false, reason: c.reason };
    calls += c.calls;
    retries += c.retries;
    writes += c.writes;
    timeMs += c.timeMs;
  }
  const over: string[] = [];
  if (calls > budgets.toolCalls) over.push(`${calls} tool calls (budget ${budgets.toolCalls})`);
  if (retries > budgets.retries) over.push(`${retries} retries (budget ${budgets.retries})`);
  if (writes > budgets.externalWrites)
    over.push(`${writes} writes (budget ${budgets.externalWrites})`);
  // Half the budget: waits compound (a retry after a delayed approval waits for it again).
  if (timeMs * 2 > budgets.virtualTimeMs)
    over.push(`${timeMs} ms of waiting (budget ${budgets.virtualTimeMs} ms, kept to half)`);
  if (over.length > 0) return { required: false, reason: `recovery could take ${over.join(', ')}` };
  return {
    required: true,
    by: 'static',
    reason:
      plan.faults.length === 0
        ? 'no faults'
        : 'every fault is recoverable and the worst-case recovery fits the budgets',
  };
}
