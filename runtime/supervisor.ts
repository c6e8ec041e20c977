import { createHash } from 'node:crypto';
import type { StopReason } from './contract.js';
import type { FailureClass } from './failure-class.js';
import type { Safeguards } from './safeguards.js';

export interface Failure {
  class: FailureClass;
  message: string;
  retryAfterMs?: number;
}

export interface SupervisorInput {
  failure: Failure;
  /** 1 for the first retry of this action. */
  attempt: number;
  retriesUsed: number;
  retryBudget: number;
  /** Whether a side effect may already have happened in this step (then a planner error is not simply regenerated). */
  sideEffectPossible: boolean;
  safeguards: Safeguards;
  /** Seeds the jitter: the same run, operation and attempt always wait the same. */
  jitterSeed: string;
  backoff: { baseMs: number; capMs: number };
  stopConditions: readonly FailureClass[];
}

/** What to do next, chosen by failure class alone. */
export type SupervisorDecision =
  | { kind: 'retry'; delayMs: number; reason: string }
  | { kind: 'wait'; delayMs: number; reason: string }
  | { kind: 'regenerate'; reason: string }
  | { kind: 'reconcile'; reason: string }
  | { kind: 'replan'; reason: string }
  | { kind: 'escalate'; stop: StopReason; reason: string }
  | { kind: 'stop'; stop: StopReason; reason: string };

/** A hard ceiling even with budgets off, so a broken agent ends instead of hanging the suite. */
export const RETRY_CEILING = 1_000;

/** Capped exponential backoff with deterministic jitter in [50%, 100%] of the step. */
export function backoffDelay(
  attempt: number,
  backoff: { baseMs: number; capMs: number },
  seed: string,
): number {
  const step = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  const unit = createHash('sha256').update(seed).digest().readUInt32BE(0) / 0x1_0000_0000;
  return Math.round(step * (0.5 + unit / 2));
}

/**
 * Retry by failure class: transient → backoff with the same key; rate-limited → wait the
 * retry-after; unauthenticated/forbidden → stop and escalate; invalid planner output →
 * regenerate when nothing happened; failed precondition → refresh and replan; policy denial
 * and budget exhaustion → stop with the reason.
 */
export function decide(input: SupervisorInput): SupervisorDecision {
  const { failure, safeguards } = input;
  const cls = failure.class;
  if (input.stopConditions.includes(cls)) {
    return { kind: 'stop', stop: stopReasonFor(cls), reason: `stop condition: ${cls}` };
  }
  const outOfRetries =
    input.retriesUsed >= RETRY_CEILING ||
    (safeguards.budgets && input.retriesUsed >= input.retryBudget);

  if (!safeguards['class-retry']) {
    // Without classification every failure looks transient: retry at once.
    if (outOfRetries)
      return {
        kind: 'stop',
        stop: 'budget-exhausted',
        reason: `retry budget used up after ${cls}`,
      };
    return { kind: 'retry', delayMs: 0, reason: `${cls}: retrying (unclassified)` };
  }

  switch (cls) {
    case 'transient':
    case 'unavailable':
    case 'timeout':
    case 'malformed_reply':
      if (outOfRetries)
        return {
          kind: 'stop',
          stop: 'budget-exhausted',
          reason: `retry budget used up after ${cls}: ${failure.message}`,
        };
      return {
        kind: 'retry',
        delayMs: backoffDelay(input.attempt, input.backoff, `${input.jitterSeed}#${input.attempt}`),
        reason: `${cls}: backing off`,
      };
    case 'rate_limited':
      if (outOfRetries)
        return {
          kind: 'stop',
          stop: 'budget-exhausted',
          reason: `retry budget used up while rate-limited`,
        };
      return {
        kind: 'wait',
        delayMs: failure.retryAfterMs ?? input.backoff.baseMs,
        reason: 'rate-limited: waiting out retry-after',
      };
    case 'unauthenticated':
    case 'forbidden':
      if (!safeguards['revocation-stop']) {
        if (outOfRetries)
          return {
            kind: 'stop',
            stop: 'budget-exhausted',
            reason: `retry budget used up after ${cls}`,
          };
        return {
          kind: 'retry',
          delayMs: backoffDelay(
            input.attempt,
            input.backoff,
            `${input.jitterSeed}#${input.attempt}`,
          ),
          reason: `${cls}: retrying`,
        };
      }
      return { kind: 'escalate', stop: 'permission-lost', reason: `${cls}: ${failure.message}` };
    case 'invalid_output':
      if (input.sideEffectPossible)
        return {
          kind: 'escalate',
          stop: 'invalid-output',
          reason: 'invalid output after a side effect',
        };
      if (outOfRetries)
        return {
          kind: 'stop',
          stop: 'invalid-output',
          reason: 'planner kept returning invalid output',
        };
      return { kind: 'regenerate', reason: `invalid structured output: ${failure.message}` };
    case 'precondition_failed':
      if (outOfRetries)
        return { kind: 'stop', stop: 'precondition-unsatisfiable', reason: failure.message };
      return { kind: 'replan', reason: `precondition failed: ${failure.message}` };
    case 'ambiguous':
      return { kind: 'reconcile', reason: failure.message };
    case 'policy_denied':
      return { kind: 'stop', stop: 'policy-denied', reason: failure.message };
    case 'approval_denied':
      return { kind: 'stop', stop: 'approval-denied', reason: failure.message };
    case 'budget_exhausted':
      return { kind: 'stop', stop: 'budget-exhausted', reason: failure.message };
    case 'cancelled':
      return { kind: 'stop', stop: 'cancelled', reason: failure.message };
    case 'invalid_argument':
    case 'not_found':
    case 'conflict':
      return { kind: 'stop', stop: 'tool-error', reason: `${cls}: ${failure.message}` };
  }
}

/** The stop reason each failure class stands for when a contract makes it stop the run. */
const STOP_REASON_OF: Readonly<Record<FailureClass, StopReason>> = {
  transient: 'tool-error',
  timeout: 'tool-error',
  rate_limited: 'tool-error',
  unavailable: 'tool-error',
  unauthenticated: 'permission-lost',
  forbidden: 'permission-lost',
  invalid_argument: 'tool-error',
  precondition_failed: 'precondition-unsatisfiable',
  not_found: 'tool-error',
  conflict: 'tool-error',
  ambiguous: 'ambiguous-unresolvable',
  malformed_reply: 'tool-error',
  invalid_output: 'invalid-output',
  policy_denied: 'policy-denied',
  approval_denied: 'approval-denied',
  budget_exhausted: 'budget-exhausted',
  cancelled: 'cancelled',
};

function stopReasonFor(cls: FailureClass): StopReason {
  return STOP_REASON_OF[cls];
}
