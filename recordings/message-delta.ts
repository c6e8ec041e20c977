import { canonicalJson } from '../runtime/canonical-json.js';
import { redact } from './redact.js';

/** One request's messages as stored: how many lead messages the previous request had, then the rest. */
export interface MessageDelta {
  /** How many leading messages are the previous request's, unchanged. */
  kept: number;
  /** The messages after those (all of them on the first request), secrets redacted. */
  messages: unknown[];
}

/**
 * A chat loop resends its whole transcript every turn, so a run's requests are stored as
 * deltas: each one keeps the longest unchanged prefix of the previous one and lists the rest.
 * Messages are compared redacted and as canonical JSON (key order never makes a difference).
 * The meter and the model cassettes share it, so both store a request the same way.
 *
 * @example
 * ```ts
 * const delta = messageDeltas();
 * delta([{ role: 'user', content: 'a' }]); // → { kept: 0, messages: [{ role: 'user', content: 'a' }] }
 * delta([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }]);
 * // → { kept: 1, messages: [{ role: 'assistant', content: 'b' }] }
 * ```
 */
export function messageDeltas(): (messages: readonly unknown[]) => MessageDelta {
  let previous: string[] = [];
  return (messages) => {
    const canonical = canonicalMessages(messages);
    let kept = 0;
    while (kept < previous.length && kept < canonical.length && previous[kept] === canonical[kept])
      kept++;
    previous = canonical;
    return { kept, messages: canonical.slice(kept).map((m) => JSON.parse(m) as unknown) };
  };
}

/** Each message redacted, as canonical JSON: the form requests are compared in. */
export function canonicalMessages(messages: readonly unknown[]): string[] {
  return messages.map((m) => canonicalJson(redact(m)));
}

/**
 * The whole request back from its delta and the previous request's messages (canonical JSON).
 * A delta that keeps more than the previous request had is a broken recording: null.
 */
export function applyDelta(previous: readonly string[], delta: MessageDelta): string[] | null {
  if (delta.kept > previous.length) return null;
  return [...previous.slice(0, delta.kept), ...delta.messages.map((m) => canonicalJson(m))];
}
