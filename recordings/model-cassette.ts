import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '../runtime/errors.js';
import { formatIssues } from '../runtime/validate.js';
import { applyDelta } from './message-delta.js';
import { TOOL_REDACTION } from './model-request.js';
import { redact } from './redact.js';

/** The `format` every model cassette names, so a stray JSON file is refused, not replayed. */
export const MODEL_CASSETTE_FORMAT = 'faultline-model-cassette';
/** The one model cassette version this code reads and writes; any other is refused. */
export const MODEL_CASSETTE_VERSION = 1;

const json = z.json();

/** What the agent sent, as a delta on the run's previous request (see `message-delta.ts`). */
export const recordedModelRequestSchema = z.object({
  /** How many leading messages are the previous request's, unchanged. */
  kept: z.number().int().nonnegative(),
  /** The rest of the messages, secrets redacted. */
  messages: z.array(json),
  /** The tools offered, whole; absent: the same as the previous request's. */
  tools: z.array(json).optional(),
  /** Every other call option that shapes the reply (temperature, seed, response format …). */
  settings: z.record(z.string(), json),
});
export type RecordedModelRequest = z.infer<typeof recordedModelRequestSchema>;

const tokens = z.number().optional();

/** The provider's reply, untouched but for redaction: what replay hands back. */
export const recordedModelReplySchema = z.object({
  /** Text, reasoning, tool calls … as the provider returned them (file data as base64). */
  content: z.array(z.looseObject({ type: z.string() })),
  finishReason: z.object({ unified: z.string(), raw: z.string().optional() }),
  usage: z.object({
    inputTokens: z.object({
      total: tokens,
      noCache: tokens,
      cacheRead: tokens,
      cacheWrite: tokens,
    }),
    outputTokens: z.object({ total: tokens, text: tokens, reasoning: tokens }),
    raw: z.record(z.string(), json).optional(),
  }),
  providerMetadata: z.record(z.string(), z.record(z.string(), json)).optional(),
  /** The response's id, model id and timestamp (ISO), as the provider named them. */
  response: z
    .object({
      id: z.string().optional(),
      modelId: z.string().optional(),
      timestamp: z.string().optional(),
    })
    .optional(),
  warnings: z.array(json),
});
export type RecordedModelReply = z.infer<typeof recordedModelReplySchema>;

/** A call the provider failed (a 429, a 5xx, a body that did not parse): replay fails it alike. */
export const recordedModelFailureSchema = z.object({
  /** The error's class name; `AI_APICallError` is rebuilt as one, so it classifies the same. */
  name: z.string(),
  message: z.string(),
  url: z.string().optional(),
  statusCode: z.number().int().optional(),
  responseHeaders: z.record(z.string(), z.string()).optional(),
  responseBody: z.string().optional(),
  isRetryable: z.boolean().optional(),
});
export type RecordedModelFailure = z.infer<typeof recordedModelFailureSchema>;

export const recordedModelCallSchema = z
  .object({
    /** 1-based, in the order the calls were made. */
    index: z.number().int().positive(),
    /** `provider:model` of the model that answered. */
    modelId: z.string(),
    request: recordedModelRequestSchema,
    reply: recordedModelReplySchema.optional(),
    error: recordedModelFailureSchema.optional(),
    /** Wall-clock milliseconds the provider took; replay reports it to the meter as measured. */
    latencyMs: z.number().nonnegative(),
  })
  .refine((c) => (c.reply === undefined) !== (c.error === undefined), {
    message: 'needs exactly one of reply or error',
    path: ['reply'],
  });
export type RecordedModelCall = z.infer<typeof recordedModelCallSchema>;

export const modelCassetteSchema = z
  .object({
    format: z.literal(MODEL_CASSETTE_FORMAT),
    version: z.literal(MODEL_CASSETTE_VERSION),
    /** The run the calls were made in (scenario, fault plan, seed). */
    runId: z.string().min(1),
    /** `PROVIDER:MODEL` as given to `--model` when recording. */
    model: z.string().min(1),
    calls: z.array(recordedModelCallSchema),
  })
  .superRefine((cassette, ctx) => {
    let messages: string[] = [];
    cassette.calls.forEach((call, i) => {
      if (call.index !== i + 1)
        ctx.addIssue({
          code: 'custom',
          path: ['calls', i, 'index'],
          message: `must be ${i + 1} (calls are numbered in order)`,
        });
      const next = applyDelta(messages, call.request);
      if (next === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['calls', i, 'request', 'kept'],
          message: `keeps ${call.request.kept} messages, but the previous request had ${messages.length}`,
        });
        return;
      }
      messages = next;
    });
  });
export type ModelCassette = z.infer<typeof modelCassetteSchema>;

/**
 * The cassette file of one run in a folder: the run id made safe for a file name (`/` as `__`,
 * `#` as `.`), so a suite's runs never share a file. The run id inside is checked on load.
 *
 * @example
 * ```ts
 * modelCassettePath('cassettes', 'refunds/full-refund#lost-ack#7');
 * // → 'cassettes/refunds__full-refund.lost-ack.7.json'
 * ```
 */
export function modelCassettePath(dir: string, runId: string): string {
  const name = runId
    .replace(/\//g, '__')
    .replace(/#/g, '.')
    .replace(/[^a-zA-Z0-9._-]/g, '_');
  return join(dir, `${name}.json`);
}

const shown = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

/**
 * Checks `value` as a model cassette, or throws {@link InvalidInputError} naming the file and
 * the field. Format and version are checked first and alone: a cassette of another version is
 * refused for its version, not for the fields that version changed.
 *
 * @example
 * ```ts
 * const cassette = parseModelCassette(JSON.parse(text), 'cassettes/refunds__full-refund.none.7.json');
 * ```
 */
export function parseModelCassette(value: unknown, file: string): ModelCassette {
  const source = `model cassette ${file}`;
  const head = (value ?? {}) as { format?: unknown; version?: unknown };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidInputError(source, ['(root): must be a JSON object']);
  if (head.format !== MODEL_CASSETTE_FORMAT)
    throw new InvalidInputError(source, [
      `format: must be "${MODEL_CASSETTE_FORMAT}" (got ${shown(head.format)})`,
    ]);
  if (head.version !== MODEL_CASSETTE_VERSION)
    throw new InvalidInputError(source, [
      `version: must be ${MODEL_CASSETTE_VERSION}, the only model cassette version this faultline reads (got ${shown(head.version)}); re-record with --record-model`,
    ]);
  const parsed = modelCassetteSchema.safeParse(value);
  // The first issue only: one line that names the field is what a user can act on.
  if (!parsed.success) throw new InvalidInputError(source, formatIssues(parsed.error).slice(0, 1));
  return parsed.data;
}

/** Reads and checks one cassette file ({@link InvalidInputError} naming the file when bad). */
export function readModelCassette(file: string): ModelCassette {
  const text = readFileSync(file, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new InvalidInputError(`model cassette ${file}`, [`(root): not valid JSON (${why})`], {
      cause: error,
    });
  }
  return parseModelCassette(value, file);
}

/**
 * Checks a `--replay-model` folder before anything runs: it exists, and every `.json` file in
 * it is a model cassette of this version, recorded with `model` when one is given. Throws
 * {@link InvalidInputError} naming the folder or the file and field; returns the cassettes by
 * run id.
 *
 * @example
 * ```ts
 * checkModelCassettes('test/cassettes/models', 'openai:gpt-4o-mini');
 * ```
 */
export function checkModelCassettes(dir: string, model?: string): Map<string, string> {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // Reported below, as the folder the user named.
  }
  if (!isDir)
    throw new InvalidInputError(`--replay-model ${dir}`, [
      'no such folder (record the cassettes first with --record-model DIR)',
    ]);
  const byRun = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith('.json')) continue;
    const file = join(dir, name);
    const cassette = readModelCassette(file);
    if (model !== undefined && cassette.model !== model)
      throw new InvalidInputError(`model cassette ${file}`, [
        `model: recorded with ${cassette.model}, but --model is ${model} (replay with the model it was recorded with, or record again)`,
      ]);
    byRun.set(cassette.runId, file);
  }
  return byRun;
}

/**
 * Writes a cassette atomically (a temporary file renamed into place), secrets redacted again
 * on the way out, so a crash never leaves half a cassette and nothing secret reaches one.
 */
export async function saveModelCassette(file: string, cassette: ModelCassette): Promise<void> {
  const redacted: ModelCassette = {
    ...redact({ ...cassette, calls: [] }),
    calls: cassette.calls.map((call) => {
      const { tools, ...request } = call.request;
      return {
        ...redact({ ...call, request }),
        request: {
          ...redact(request),
          ...(tools === undefined ? {} : { tools: redact(tools, TOOL_REDACTION) }),
        },
      };
    }),
  };
  const text = `${JSON.stringify(redacted, null, 2)}\n`;
  const tmp = `${file}.tmp-${process.pid}`;
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
