import type { CallOutcome } from './executor.js';
import type { ActionRecord } from './records.js';
import type { Change } from './store.js';
import type { Failure } from './supervisor.js';

/** A change before the runtime stamps it with the clock. */
export type PendingChange = Omit<Change, 'at'> & { at?: number };

/** How one step of the run went: on, or a failure for the supervisor, naming its operation. */
export type StepResult = { ok: true } | { ok: false; failure: Failure; operationId: string };

/** A failed call as the supervisor sees it (`write`: no reply to a write is ambiguous). */
export function toFailure(outcome: Exclude<CallOutcome, { kind: 'ok' }>, write: boolean): Failure {
  if (outcome.kind === 'no-reply')
    return { class: write ? 'ambiguous' : 'timeout', message: outcome.message };
  return outcome.retryAfterMs === undefined
    ? { class: outcome.class, message: outcome.message }
    : { class: outcome.class, message: outcome.message, retryAfterMs: outcome.retryAfterMs };
}

/**
 * Whether a write may have reached the world: its outcome is unknown (`ambiguous`), or its
 * intent was committed with its idempotency key (which comes before any send). A write whose
 * approval was asked for is recorded `intended` without a key: it waited for a person, and
 * nothing was sent, so a resume asks for the approval again rather than reconcile a send that
 * never happened (and resend it with no key and no token).
 */
export function mayHaveBeenSent(action: ActionRecord): boolean {
  if (action.kind !== 'write') return false;
  return (
    action.status === 'ambiguous' ||
    (action.status === 'intended' && action.idempotencyKey !== null)
  );
}
