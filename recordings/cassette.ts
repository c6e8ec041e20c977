import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../runtime/canonical-json.js';
import { FaultlineError, InvalidInputError } from '../runtime/errors.js';
import { parseInput } from '../runtime/validate.js';
import { DEFAULT_REDACTION, redact, redactUrl, type RedactOptions } from './redact.js';

/** The `format` every cassette names, so a stray JSON file is refused rather than replayed. */
export const CASSETTE_FORMAT = 'faultline-cassette';
/**
 * The cassette version this code writes. Version 1 (no unanswered calls, no session) is still
 * read; a later one is refused, never guessed at.
 */
export const CASSETTE_VERSION = 2;
/** Every version this code reads. */
export const CASSETTE_VERSIONS = [1, 2] as const;

const jsonObject = z.record(z.string(), z.unknown());

/** Where the recording came from, so a stale cassette can be re-recorded from the same place. */
export const cassetteSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('mcp-stdio'), command: z.string().min(1), args: z.array(z.string()) }),
  z.object({ kind: z.literal('mcp-url'), url: z.string().min(1) }),
  /** A caller-supplied MCP transport (in-memory, a custom bridge); `label` says what it was. */
  z.object({ kind: z.literal('mcp-transport'), label: z.string().min(1) }),
  z.object({ kind: z.literal('http') }),
]);
export type CassetteSource = z.infer<typeof cassetteSourceSchema>;

/** One entry of the server's `tools/list`, kept whole so replay offers the same schemas. */
export const recordedToolSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  inputSchema: z.looseObject({ type: z.literal('object') }),
  outputSchema: z.looseObject({ type: z.literal('object') }).optional(),
});
export type RecordedTool = z.infer<typeof recordedToolSchema>;

/** A `CallToolResult` as JSON. Loose: replay must hand back whatever the server sent. */
export const recordedResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })),
  structuredContent: jsonObject.optional(),
  isError: z.boolean().optional(),
  _meta: jsonObject.optional(),
});
export type RecordedResult = z.infer<typeof recordedResultSchema>;

/** A JSON-RPC error reply, for servers that answer a call with a protocol error instead of a result. */
export const recordedErrorSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.json().optional(),
});

/** An HTTP body: parsed JSON when it was JSON, else text, else base64 for bytes that are not UTF-8. */
export const httpBodySchema = z.union([
  z.strictObject({ json: z.json() }),
  z.strictObject({ text: z.string() }),
  z.strictObject({ base64: z.string() }),
]);
export type HttpBody = z.infer<typeof httpBodySchema>;

/**
 * The recorded session: who ran what under which contract, and how it ended, so a folder of
 * cassettes is a suite that needs nothing else to replay. Written by `faultline record`.
 */
export const sessionSchema = z.strictObject({
  /** The run id the session ran under; replay runs under the same id (idempotency keys derive from it). */
  runId: z.string().min(1),
  /**
   * The scenario the agent was given, whole as JSON (`Scenario`: objective in its contract,
   * blueprint, input, operator). Its `world` says what was live (for a live server, the
   * scenario file's world); replay replaces it with this cassette.
   */
  scenario: jsonObject,
  /** The fault plan the live side ran under when known (`faultline serve --plan`), else `none`. */
  faultPlanId: z.string().min(1),
  /** The autonomy mode the agent ran in. */
  mode: z.string().min(1),
  agent: z.strictObject({ name: z.string().min(1), version: z.string() }),
  /** The agent's own account of how the session ended. */
  outcome: z.strictObject({
    state: z.string().min(1),
    stopReason: z.string().nullable(),
    detail: z.string().nullable(),
  }),
  /**
   * Whether the recorded session did the job (`pass`), did it wrong (`fail`), or is not known
   * (`null`). Replay judges outcome only on a `pass` recording: following it to its end, and
   * ending as it ended, is success; anything else is not.
   */
  verdict: z.enum(['pass', 'fail']).nullable(),
  /** Where the verdict came from (`--verdict`, a result set, …), for the reader. */
  verdictSource: z.string().nullable(),
  /** The model cassette of the session (relative to this file), when a model agent ran. */
  modelCassette: z.string().nullable(),
  /** The recording's wall time, ms: how long the session took live. */
  wallMs: z.number().nonnegative(),
});
export type CassetteSession = z.infer<typeof sessionSchema>;

const ordinals = {
  /** 1-based position in the recording. */
  step: z.number().int().min(1),
  /** The match key's arguments as canonical JSON: what replay compares. */
  canonicalArgs: z.string(),
  /** 1-based count of interactions with this kind, name and `canonicalArgs` so far, this one included. */
  occurrence: z.number().int().min(1),
};

export const toolInteractionSchema = z
  .object({
    ...ordinals,
    kind: z.literal('tool'),
    tool: z.string().min(1),
    arguments: jsonObject,
    /** The request's `_meta` (credentials redacted); informative only, never matched on. */
    meta: jsonObject.optional(),
    result: recordedResultSchema.optional(),
    error: recordedErrorSchema.optional(),
    /**
     * The call got no reply (a lost acknowledgement, a server that hung): how long the agent
     * waited, in its clock's milliseconds, before it gave up (cancelled the request) or the
     * session ended. Replay sends no reply to it either.
     */
    unanswered: z.strictObject({ waitedMs: z.number().nonnegative() }).optional(),
  })
  .refine(
    (i) => [i.result, i.error, i.unanswered].filter((answer) => answer !== undefined).length === 1,
    {
      message: 'needs exactly one of result, error or unanswered',
      path: ['result'],
    },
  );
export type ToolInteraction = z.infer<typeof toolInteractionSchema>;

export const httpInteractionSchema = z.object({
  ...ordinals,
  kind: z.literal('http'),
  http: z.object({
    method: z.string().min(1),
    url: z.string().min(1),
    requestHeaders: z.record(z.string(), z.string()).optional(),
    requestBody: httpBodySchema.optional(),
    status: z.number().int(),
    headers: z.record(z.string(), z.string()),
    /** Null when empty, or a stream (`text/event-stream`) that was passed through unread. */
    body: httpBodySchema.nullable(),
  }),
});
export type HttpInteraction = z.infer<typeof httpInteractionSchema>;

export const modelInteractionSchema = z.object({
  ...ordinals,
  kind: z.literal('model'),
  request: z.json().optional(),
  reply: z.json(),
});
export type ModelInteraction = z.infer<typeof modelInteractionSchema>;

export const interactionSchema = z.discriminatedUnion('kind', [
  toolInteractionSchema,
  httpInteractionSchema,
  modelInteractionSchema,
]);
export type Interaction = z.infer<typeof interactionSchema>;

type Ordinals = 'step' | 'canonicalArgs' | 'occurrence';
/** An interaction before its place in the recording is known. */
export type InteractionDraft =
  | Omit<ToolInteraction, Ordinals>
  | Omit<HttpInteraction, Ordinals>
  | Omit<ModelInteraction, Ordinals>;

/** The name and arguments an interaction is matched on. */
function matchKey(draft: InteractionDraft): { name: string; canonicalArgs: string } {
  switch (draft.kind) {
    case 'tool':
      return { name: `tool:${draft.tool}`, canonicalArgs: canonicalJson(draft.arguments) };
    case 'http':
      return {
        name: `http:${draft.http.method} ${draft.http.url}`,
        canonicalArgs: canonicalJson(draft.http.requestBody ?? null),
      };
    case 'model':
      return { name: 'model', canonicalArgs: canonicalJson(draft.request ?? null) };
  }
}

/**
 * Numbers drafts in order: `step`, `canonicalArgs` and `occurrence` are derived, never typed
 * by hand, and a loaded cassette is checked against this same derivation.
 */
export function sequence(drafts: readonly InteractionDraft[]): Interaction[] {
  const seen = new Map<string, number>();
  return drafts.map((draft, index) => {
    const { name, canonicalArgs } = matchKey(draft);
    const key = `${name}\u0000${canonicalArgs}`;
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    return { ...draft, step: index + 1, canonicalArgs, occurrence };
  });
}

const nth = (n: number): string =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;

/** A parsed value as JSON for a message (a missing field shows as `nothing`). */
const shown = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

export const cassetteSchema = z
  .object({
    format: z.literal(CASSETTE_FORMAT, {
      error: (issue) => `must be "${CASSETTE_FORMAT}" (got ${shown(issue.input)})`,
    }),
    version: z.literal(CASSETTE_VERSIONS, {
      error: (issue) =>
        `must be ${CASSETTE_VERSIONS.join(' or ')}, the cassette versions this faultline reads (got ${shown(issue.input)})`,
    }),
    recordedAt: z.iso.datetime({ offset: true }),
    source: cassetteSourceSchema,
    server: z.object({ name: z.string(), version: z.string() }).optional(),
    tools: z.array(recordedToolSchema),
    interactions: z.array(interactionSchema),
    /** What the recorded session was: absent for a bare recording (`recordMcp`), set by `faultline record`. */
    session: sessionSchema.optional(),
  })
  .superRefine((cassette, ctx) => {
    const expected = sequence(cassette.interactions);
    cassette.interactions.forEach((got, i) => {
      const want = expected[i];
      if (want === undefined) return;
      const at = (field: string): PropertyKey[] => ['interactions', i, field];
      if (got.step !== want.step)
        ctx.addIssue({
          code: 'custom',
          path: at('step'),
          message: `must be ${want.step}: steps count 1, 2, 3… in order (got ${got.step})`,
        });
      if (got.canonicalArgs !== want.canonicalArgs)
        ctx.addIssue({
          code: 'custom',
          path: at('canonicalArgs'),
          message: `must be ${JSON.stringify(want.canonicalArgs)}, the canonical JSON of the arguments (got ${JSON.stringify(got.canonicalArgs)})`,
        });
      else if (got.occurrence !== want.occurrence)
        ctx.addIssue({
          code: 'custom',
          path: at('occurrence'),
          message: `must be ${want.occurrence}: this is the ${nth(want.occurrence)} such call (got ${got.occurrence})`,
        });
    });
  });
export type Cassette = z.infer<typeof cassetteSchema>;

/** Everything a cassette holds but its header and derived fields. */
export interface CassetteInput {
  source: CassetteSource;
  tools: readonly RecordedTool[];
  interactions: readonly InteractionDraft[];
  server?: { name: string; version: string };
  /** When the recording was made. Read from the wall clock only when the caller omits it. */
  recordedAt?: string | Date;
  /** What the session was (`faultline record`). */
  session?: CassetteSession;
}

/**
 * Assembles and checks a cassette from recorded parts.
 *
 * @example
 * ```ts
 * const cassette = createCassette({
 *   source: { kind: 'http' },
 *   tools: [],
 *   interactions: [{ kind: 'model', reply: { text: 'hi' } }],
 *   recordedAt: '2025-01-01T00:00:00.000Z',
 * });
 * ```
 */
export function createCassette(input: CassetteInput): Cassette {
  const recordedAt =
    input.recordedAt === undefined
      ? new Date().toISOString()
      : typeof input.recordedAt === 'string'
        ? input.recordedAt
        : input.recordedAt.toISOString();
  return parseInput(
    cassetteSchema,
    {
      format: CASSETTE_FORMAT,
      version: CASSETTE_VERSION,
      recordedAt,
      source: input.source,
      ...(input.server === undefined ? {} : { server: input.server }),
      tools: input.tools,
      interactions: sequence(input.interactions),
      ...(input.session === undefined ? {} : { session: input.session }),
    },
    'recorded cassette',
  );
}

/** Strips an interaction's derived fields, so it can be changed and sequenced again. */
function draftOf(interaction: Interaction): InteractionDraft {
  const {
    step: _step,
    canonicalArgs: _canonicalArgs,
    occurrence: _occurrence,
    ...draft
  } = interaction;
  return draft;
}

/** An interaction with every secret in its payload replaced; its derived fields are not yet recomputed. */
export function redactDraft(
  draft: InteractionDraft,
  options: RedactOptions = DEFAULT_REDACTION,
): InteractionDraft {
  switch (draft.kind) {
    case 'tool':
    case 'model':
      return redact(draft, options);
    case 'http': {
      const clean = redact(draft, options);
      return { ...clean, http: { ...clean.http, url: redactUrl(draft.http.url, options) } };
    }
  }
}

/**
 * A copy with secrets removed from every payload (arguments, `_meta`, results, HTTP headers,
 * URLs and bodies, model turns) and from the source. Tool schemas are left alone: a property
 * *named* `token` in an input schema is a description, not a secret.
 */
export function redactCassette(
  cassette: Cassette,
  options: RedactOptions = DEFAULT_REDACTION,
): Cassette {
  const source: CassetteSource =
    cassette.source.kind === 'mcp-stdio'
      ? { ...cassette.source, args: redact(cassette.source.args, options) }
      : cassette.source.kind === 'mcp-url'
        ? { ...cassette.source, url: redactUrl(cassette.source.url, options) }
        : cassette.source;
  return {
    ...cassette,
    source,
    // Matching keys are recomputed: a secret argument must not survive inside `canonicalArgs`.
    interactions: sequence(cassette.interactions.map((i) => redactDraft(draftOf(i), options))),
  };
}

/** Keys that lead a cassette's objects, so a reader meets the header and each step's identity first. */
const LEADING_KEYS = [
  'format',
  'name',
  'version',
  'recordedAt',
  'source',
  'server',
  'tools',
  'interactions',
  'session',
  'step',
  'kind',
  'type',
  'tool',
  'occurrence',
  'canonicalArgs',
  'arguments',
  'method',
  'url',
  'status',
  'description',
];

function rank(key: string): number {
  const i = LEADING_KEYS.indexOf(key);
  return i < 0 ? LEADING_KEYS.length : i;
}

/** Pretty JSON with a fixed key order, so re-recording the same session gives the same bytes. */
export function formatCassette(cassette: Cassette): string {
  return `${JSON.stringify(
    cassette,
    (_key, value: unknown) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).sort(
          ([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0),
        ),
      );
    },
    2,
  )}\n`;
}

/**
 * Checks `json` as a cassette or throws {@link InvalidInputError} naming `source` and each
 * bad field.
 *
 * @example
 * ```ts
 * const cassette = parseCassette(JSON.parse(text), 'refunds.cassette.json');
 * ```
 */
export function parseCassette(json: unknown, source: string): Cassette {
  return parseInput(cassetteSchema, json, `cassette ${source}`);
}

/**
 * Reads and checks a cassette file. Unreadable JSON and bad fields are both
 * {@link InvalidInputError}s naming the file.
 *
 * @example
 * ```ts
 * const cassette = await loadCassette('test/cassettes/notes.json');
 * ```
 */
export async function loadCassette(path: string): Promise<Cassette> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new FaultlineError('not-found', `Cannot read cassette ${path}`, { path }, false, {
      cause: error,
    });
  }
  return parseCassetteText(text, path);
}

/**
 * Checks a cassette file's text: unreadable JSON and bad fields are both
 * {@link InvalidInputError}s naming `path`. What `loadCassette` does once the file is read,
 * for callers that read it themselves (synchronously, say).
 */
export function parseCassetteText(text: string, path: string): Cassette {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new InvalidInputError(`cassette ${path}`, [`(root): not valid JSON (${why})`], {
      cause: error,
    });
  }
  return parseCassette(json, path);
}

/**
 * Checks, redacts and writes a cassette as pretty, stably ordered JSON. The write is atomic
 * (a temporary file renamed into place), so a crash never leaves half a cassette, and a bad
 * cassette writes nothing.
 *
 * @example
 * ```ts
 * await saveCassette('test/cassettes/notes.json', cassette);
 * ```
 */
export async function saveCassette(
  path: string,
  cassette: Cassette,
  options: { redaction?: RedactOptions } = {},
): Promise<void> {
  const checked = parseInput(cassetteSchema, cassette, `cassette ${path}`);
  const text = formatCassette(redactCassette(checked, options.redaction));
  const tmp = `${path}.tmp-${process.pid}`;
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
