import { STOP_REASONS } from '../runtime/contract.js';

/** The answer words of the small vocabulary that are not also one of faultline's states. */
const STOP_WORDS: ReadonlySet<string> = new Set(['stopped', 'escalated']);
const REASONS: ReadonlySet<string> = new Set(STOP_REASONS);

/**
 * How an agent's own answer stands against the expected ending, the world left aside (the
 * expected world is checked on its own and always decides):
 * - `agrees`: nothing to say against the answer;
 * - `false-success`: it claimed `completed` where the run should have stopped;
 * - `state-mismatch`: it ended otherwise than expected (stopped where it should have completed,
 *   or — speaking faultline's states — in another state);
 * - `stop-reason-mismatch`: it gave one of faultline's stop reasons, and not the expected one.
 */
export type AnswerVerdict =
  | { readonly kind: 'agrees' }
  | { readonly kind: 'false-success' }
  | { readonly kind: 'state-mismatch' }
  | { readonly kind: 'stop-reason-mismatch' };

/**
 * Maps an agent's answer onto the expected outcome. Agents that speak faultline's states (the
 * reference and the zoo: `failed`, `blocked`, `cancelled`, `compensated` with a stop reason)
 * are held to the expected state and stop reason exactly. The small vocabulary is judged by
 * what it can say: `stopped` or `escalated` is right wherever a stop was expected (its reason
 * is held to the expected one only when it is one of faultline's reason words), and wrong
 * where the run should have completed; `completed` is right where completion was expected
 * (a stop reason it gives, such as `decided-not-to-act`, is held to the expected one) and a
 * false claim where a stop was; `returned` (no answer) is judged by the world alone.
 *
 * @example
 * ```ts
 * judgeAnswer({ state: 'failed', stopReason: 'approval-denied' }, { state: 'stopped', stopReason: 'the manager said no' });
 * // { kind: 'agrees' }
 * ```
 */
export function judgeAnswer(
  expected: { readonly state: string; readonly stopReason: string | null },
  answer: { readonly state: string; readonly stopReason: string | null },
): AnswerVerdict {
  const stopExpected = expected.state !== 'completed';
  const reasonDiffers =
    expected.stopReason !== null &&
    answer.stopReason !== null &&
    answer.stopReason !== expected.stopReason;
  if (answer.state === 'returned') return { kind: 'agrees' };
  if (answer.state === 'completed') {
    if (stopExpected) return { kind: 'false-success' };
    return reasonDiffers ? { kind: 'stop-reason-mismatch' } : { kind: 'agrees' };
  }
  if (STOP_WORDS.has(answer.state)) {
    if (!stopExpected) return { kind: 'state-mismatch' };
    const speaksReasons = answer.stopReason !== null && REASONS.has(answer.stopReason);
    return speaksReasons && reasonDiffers ? { kind: 'stop-reason-mismatch' } : { kind: 'agrees' };
  }
  if (answer.state !== expected.state) return { kind: 'state-mismatch' };
  // In faultline's own states the reason is part of the answer: one left out is wrong too.
  if (expected.stopReason !== null && answer.stopReason !== expected.stopReason)
    return { kind: 'stop-reason-mismatch' };
  return { kind: 'agrees' };
}
