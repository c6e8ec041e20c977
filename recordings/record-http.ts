import { createCassette, type Cassette, type HttpBody } from './cassette.js';
import { InteractionLog } from './interaction-log.js';
import type { RedactOptions } from './redact.js';

type Fetch = typeof globalThis.fetch;

/** Headers as a plain, sorted object; repeated headers joined as HTTP joins them. */
function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) out[name] = name in out ? `${out[name]}, ${value}` : value;
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** JSON when the content type says so and it parses, else text, else base64. */
function bodyOf(bytes: ArrayBuffer, contentType: string | null): HttpBody | null {
  if (bytes.byteLength === 0) return null;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { base64: Buffer.from(bytes).toString('base64') };
  }
  if (contentType !== null && /\bjson\b/i.test(contentType)) {
    try {
      const json: unknown = JSON.parse(text);
      return { json } as HttpBody;
    } catch {
      // Declared JSON but is not: keep what was actually sent.
    }
  }
  return { text };
}

/**
 * A `fetch` that records each exchange into `log` and otherwise behaves as `base`. The
 * response body is read from a clone before it is returned, so the caller still gets an
 * unread body; an event stream is passed through unread (recording it would wait forever).
 * A request that fails (no response) is not recorded.
 *
 * @example
 * ```ts
 * const log = new InteractionLog();
 * const recording = createRecordingFetch(log);
 * await recording('http://127.0.0.1:8080/v1/rates');
 * log.interactions(); // [{ kind: 'http', http: { method: 'GET', status: 200, … } }]
 * ```
 */
export function createRecordingFetch(log: InteractionLog, base: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const fill = log.reserve();
    const requestBody = bodyOf(
      await request.clone().arrayBuffer(),
      request.headers.get('content-type'),
    );
    const response = await base(request);
    const contentType = response.headers.get('content-type');
    const body = contentType?.includes('text/event-stream')
      ? null
      : bodyOf(await response.clone().arrayBuffer(), contentType);
    const requestHeaders = headersOf(request.headers);
    fill({
      kind: 'http',
      http: {
        method: request.method,
        url: request.url,
        ...(Object.keys(requestHeaders).length === 0 ? {} : { requestHeaders }),
        ...(requestBody === null ? {} : { requestBody }),
        status: response.status,
        headers: headersOf(response.headers),
        body,
      },
    });
    return response;
  };
}

export interface RecordHttpOptions {
  /** When the recording was made; the wall clock at the start when omitted. */
  recordedAt?: string | Date;
  /** Used for a new log; ignored when `log` is given. */
  redaction?: RedactOptions;
  /** A log shared with other recorders (e.g. {@link recordMcp}) to interleave into one cassette. */
  log?: InteractionLog;
  /**
   * Whether to replace `globalThis.fetch` while `run` runs, so code that calls `fetch` directly
   * is recorded too (default true). With false, only calls through the `fetch` handed to `run`
   * are recorded. Either way `node:http` clients are not seen.
   */
  global?: boolean;
}

/**
 * Records the HTTP calls `run` makes — for tools that are plain HTTP APIs — as `http`
 * interactions of a cassette. Node's own `fetch` is wrapped rather than intercepted below it,
 * which needs no dependency and keeps the recorder from ever answering in the network's place.
 *
 * @example
 * ```ts
 * const cassette = await recordHttp(async (fetch) => {
 *   await fetch('http://127.0.0.1:8080/v1/rates', { headers: { authorization: 'Bearer t' } });
 * });
 * ```
 */
export async function recordHttp(
  run: (fetch: Fetch) => Promise<void>,
  options: RecordHttpOptions = {},
): Promise<Cassette> {
  const recordedAt = options.recordedAt ?? new Date().toISOString();
  const log = options.log ?? new InteractionLog(options.redaction);
  const original = globalThis.fetch;
  const recording = createRecordingFetch(log, original);
  const patch = options.global ?? true;
  if (patch) globalThis.fetch = recording;
  try {
    await run(recording);
  } finally {
    if (patch) globalThis.fetch = original;
  }
  return createCassette({
    recordedAt,
    source: { kind: 'http' },
    tools: [],
    interactions: log.interactions(),
  });
}
