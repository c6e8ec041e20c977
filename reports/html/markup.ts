import { createHash } from 'node:crypto';
import { HtmlReportError } from './html-report-error.js';
import { shownText, visibleControls } from './visible-text.js';

/**
 * Markup that cannot carry unescaped text. The report shows strings that worlds, agents and
 * planted documents wrote, so a stray `<script>` in a customer note must stay text. The only
 * way to make markup is the {@link html} tag: every value it interpolates is escaped unless it
 * is already {@link Html}, and the only other ways to get an `Html` are {@link inlineElement}
 * (for the report's own constants: its style sheet and viewer script) and {@link jsonScript}
 * (which escapes `<` so its data cannot close the element).
 *
 * Text is also made inert beyond markup: control and bidi characters are spelled out as
 * `⟨U+202E⟩` (an override in a customer's name must not reverse the rest of the row), and a
 * string longer than `TEXT_LIMIT` is cut with a note (see reports/html/visible-text.ts).
 */

/** Mints markup; assigned once by {@link Html}'s static block, so only this module can. */
let mint: (text: string) => Html;

/** A piece of markup: made only by {@link html}, {@link inlineElement} or {@link jsonScript}. */
export class Html {
  readonly #text: string;
  private constructor(text: string) {
    this.#text = text;
  }

  static {
    mint = (text) => new Html(text);
  }

  toString(): string {
    return this.#text;
  }
}

/**
 * What {@link html} accepts: markup as is; text and numbers escaped (text also cut to
 * `TEXT_LIMIT` and its controls spelled out); `false`, `null` and
 * `undefined` as nothing (so `${cond && html`…`}` works); arrays concatenated.
 */
export type Interpolation =
  Html | string | number | false | null | undefined | readonly Interpolation[];

/**
 * Escapes text for an element's content or a quoted attribute value: `&`, `<`, `>`, `"`
 * and `'` become character references, so the text can neither open a tag nor leave its
 * attribute.
 *
 * @example
 * ```ts
 * escapeHtml('<img onerror="x">'); // '&lt;img onerror=&quot;x&quot;&gt;'
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      default:
        return '&#39;';
    }
  });
}

function interpolate(value: Interpolation): string {
  if (value instanceof Html) return value.toString();
  if (value === false || value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeHtml(shownText(value));
  return value.map(interpolate).join('');
}

/**
 * Text shown whole, escaped and with its controls spelled out like any interpolated text but
 * not cut: for a block of JSON whose strings were each cut already (`clipJson`), which may be
 * long as a whole (a world's records) and must stay valid to read.
 */
export function wholeText(text: string): Html {
  return mint(escapeHtml(visibleControls(text)));
}

/**
 * The markup tag: the template's literal parts are markup, every interpolated value is
 * escaped (see {@link Interpolation}). Attribute values must be quoted in the template.
 *
 * @example
 * ```ts
 * const note = '<script>alert(1)</script>';
 * String(html`<p title="${note}">${note}</p>`);
 * // '<p title="&lt;script&gt;…">&lt;script&gt;alert(1)&lt;/script&gt;</p>'
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += interpolate(value) + (strings[i + 1] ?? '');
  });
  return mint(out);
}

/**
 * An inline `<style>` or `<script>` element whose content is exactly `source` — a constant of
 * the report's own source, never text from a result or a trajectory — and the
 * Content-Security-Policy hash that allows exactly that content.
 */
export function inlineElement(
  tag: 'style' | 'script',
  source: string,
): { readonly element: Html; readonly hash: string } {
  if (source.toLowerCase().includes(`</${tag}`))
    throw new HtmlReportError('unsafe-inline', `an inline ${tag} must not contain </${tag}`);
  return {
    element: mint(`<${tag}>${source}</${tag}>`),
    hash: `'sha256-${createHash('sha256').update(source).digest('base64')}'`,
  };
}

/**
 * A `<script type="application/json">` element carrying `data`. `<`, `>` and `&` are written
 * as `\u003c`, `\u003e` and `\u0026` (still the same JSON), so no string in the data can end the
 * element or open a comment; the browser never runs a JSON script, and the viewer reads it with
 * `JSON.parse(element.textContent)`.
 */
export function jsonScript(id: string, data: unknown): Html {
  const json = JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return mint(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}
