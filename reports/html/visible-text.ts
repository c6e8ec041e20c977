/**
 * Text from worlds, agents and planted documents as the page shows it: every character a
 * browser would act on or draw as an empty box is spelled out, and a value too long to read is
 * cut with a note saying how much was left out. The terminal reports do the same with
 * `printable` (reports/printable.ts); a page needs its own spelling, because a bidi override
 * does not end at the element that holds it, it reorders everything after it on the line.
 */

/**
 * C0 controls but tab and line feed (which are whitespace in HTML and format the report's own
 * JSON blocks), DEL, C1 controls, the line and paragraph separators, and every bidi control:
 * the Arabic letter mark, the LRM and RLM marks, the embeddings and overrides (LRE, RLE, PDF,
 * LRO, RLO) and the isolates (LRI, RLI, FSI, PDI).
 */
const INERT =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control and bidi character replaced by a visible escape naming its code
 * point, so it can neither reorder the page nor hide in it.
 *
 * @example
 * ```ts
 * visibleControls('refund\u202Efdp.exe'); // 'refund⟨U+202E⟩fdp.exe'
 * ```
 */
export function visibleControls(text: string): string {
  return text.replace(
    INERT,
    (c) => `⟨U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`,
  );
}

/**
 * The longest string the page shows whole: longer ones keep their first `limit` characters
 * and say how many were left out (the run's trajectory file has them all). A 1 MB unbroken
 * string would otherwise make a page megabytes long and, where it cannot wrap, millions of
 * pixels wide.
 */
export const TEXT_LIMIT = 2_000;

/**
 * `text` cut to `limit` characters (never inside a surrogate pair), with a note of what was
 * left out.
 *
 * @example
 * ```ts
 * clipText('x'.repeat(2_500)).endsWith('…⟨500 more characters not shown⟩'); // true
 * ```
 */
export function clipText(text: string, limit: number = TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1] ?? '') ? limit - 1 : limit;
  const left = text.length - end;
  return `${text.slice(0, end)}…⟨${left.toLocaleString('en-US')} more characters not shown⟩`;
}

/**
 * A parsed JSON value with every string in it, keys included, cut by {@link clipText}: what
 * the page prints of tool arguments, world records and evidence.
 */
export function clipJson(value: unknown, limit: number = TEXT_LIMIT): unknown {
  if (typeof value === 'string') return clipText(value, limit);
  if (Array.isArray(value)) return value.map((v: unknown) => clipJson(v, limit));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value))
      Object.defineProperty(out, clipText(key, limit), {
        value: clipJson(v, limit),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}

/**
 * Text exactly as the page shows it (cut, controls spelled out): what a filter's option carries
 * as its value, so the viewer's data must hold the same to match it.
 */
export function shownText(text: string): string {
  return visibleControls(clipText(text));
}
