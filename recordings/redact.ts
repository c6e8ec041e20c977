import { BoundedCache } from '../runtime/bounded-cache.js';

/** What a cassette holds in place of a secret. */
export const REDACTED = '[REDACTED]';

/**
 * What counts as a secret. A key matches when its words end with a listed key's words, so
 * `authorization` also catches `proxy-authorization`, `api_key` catches `x-api-key` and
 * `apiKey`, and `token` catches `access_token` — but not `max_tokens` or `tokenCount`.
 * Patterns are searched inside every string, and only the match is replaced.
 */
export interface RedactOptions {
  keys?: readonly string[];
  patterns?: readonly RegExp[];
}

/** Keys and patterns redacted unless a caller says otherwise. */
export const DEFAULT_REDACTION = {
  keys: [
    'authorization',
    'api_key',
    'apiKey',
    'token',
    'password',
    'secret',
    'credential',
    'cookie',
    'faultline/credential',
    'faultline/approval-token',
  ],
  patterns: [/\bBearer\s+[A-Za-z0-9._~+/-]+=*/gi, /\bsk-[A-Za-z0-9_-]{8,}/g],
} as const satisfies Required<RedactOptions>;

/** `x-API_key`, `xApiKey` → `['x', 'api', 'key']`. */
function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** A compiled {@link RedactOptions}: what `redact` and `redactUrl` test against. */
interface Redactor {
  isSecretKey(key: string): boolean;
  scrub(text: string): string;
}

/**
 * Compiled options, by the options object: a model replay redacts every message of every
 * request (the conversation so far, each call) with the same few options objects, and splitting
 * the same keys into words again was a third of a replayed run's CPU. Options are read once.
 */
const compiled = new WeakMap<RedactOptions, Redactor>();

function redactor(options: RedactOptions): Redactor {
  let r = compiled.get(options);
  if (!r) {
    r = compile(options);
    compiled.set(options, r);
  }
  return r;
}

function compile(options: RedactOptions): Redactor {
  const keys = (options.keys ?? DEFAULT_REDACTION.keys).map(words).filter((k) => k.length > 0);
  // A pattern without `g` would replace only its first match and leave the rest in the file.
  // (`replace` starts a global pattern from index 0 each time, so one compiled copy serves all.)
  const patterns = (options.patterns ?? DEFAULT_REDACTION.patterns).map(
    (p) => new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`),
  );
  // The same few keys (role, content, type…) come back in every message: decided once each
  // (bounded: data keyed by ids could bring more).
  const decided = new BoundedCache<string, boolean>(4_096);
  return {
    isSecretKey: (key) =>
      decided.get(key, () => {
        const have = words(key);
        return keys.some(
          (k) =>
            k.length <= have.length && k.every((w, i) => have[have.length - k.length + i] === w),
        );
      }),
    scrub: (text) => patterns.reduce((out, p) => out.replace(p, REDACTED), text),
  };
}

function walk(value: unknown, r: Redactor): unknown {
  if (typeof value === 'string') return r.scrub(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, r));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      r.isSecretKey(k) && v !== null && v !== undefined ? REDACTED : walk(v, r),
    ]),
  );
}

/**
 * A copy of `value` with secrets replaced by {@link REDACTED}: the value of every secret key,
 * whatever its type, and every pattern match inside a string. Cassettes are committed and
 * diffed, so nothing secret may reach one.
 *
 * @example
 * ```ts
 * redact({ q: 'refund', api_key: 'k-123', note: 'Bearer abc' });
 * // → { q: 'refund', api_key: '[REDACTED]', note: '[REDACTED]' }
 * ```
 */
export function redact<T>(value: T, options: RedactOptions = DEFAULT_REDACTION): T {
  return walk(value, redactor(options)) as T;
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * A URL with secret query parameters and any password replaced, written by hand so that
 * `[REDACTED]` stays readable rather than percent-encoded.
 *
 * @example
 * ```ts
 * redactUrl('http://127.0.0.1:8080/v1?token=abc&q=1'); // → 'http://127.0.0.1:8080/v1?token=[REDACTED]&q=1'
 * ```
 */
export function redactUrl(url: string, options: RedactOptions = DEFAULT_REDACTION): string {
  const r = redactor(options);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return r.scrub(url);
  }
  if (parsed.password !== '') parsed.password = 'REDACTED';
  const query = parsed.search.slice(1);
  if (query !== '') {
    parsed.search = query
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = decodeName(eq < 0 ? pair : pair.slice(0, eq));
        return eq >= 0 && r.isSecretKey(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
      })
      .join('&');
  }
  return r.scrub(parsed.toString());
}
