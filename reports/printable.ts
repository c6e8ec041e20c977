/**
 * Characters a terminal would act on instead of print: C0 and C1 controls (escape sequences
 * start there), DEL, and the bidirectional overrides that reorder what follows them. Tool
 * arguments, world records and finding messages can carry text from hostile documents, and a
 * report must show that text, not run it.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text made safe to print on one terminal line: every control, DEL and bidi override becomes
 * a visible escape (`\n`, `\u001b`), everything else is kept.
 *
 * @example
 * ```ts
 * printable('ok\u001b[2J'); // 'ok\\u001b[2J'
 * ```
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}
