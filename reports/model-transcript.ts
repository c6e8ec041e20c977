import { z } from 'zod';

/**
 * A run's model transcript as the reports show it: every call the agent made to its model, with
 * the messages it sent, what came back, tokens, cost, latency, error and fault. Reports read
 * results, never the engine, so this is the reports' own structural copy of the trajectory's
 * `model` and `modelCalls` (scenarios/trajectory.ts owns the format); a call of another shape
 * is counted as unreadable and left out, never a reason to fail the report.
 *
 * The trajectory stores each request as a delta: `kept` leading messages are the previous
 * call's request messages, unchanged, and `messages` holds only what follows them. The full
 * request of every call is rebuilt here from the chain of deltas; where the chain is broken (a
 * previous call unreadable) the call says how many earlier messages it kept instead.
 */

const modelSchema = z.object({
  id: z.string(),
  promptHash: z.string().nullable(),
  temperature: z.number().nullable(),
  seed: z.number().nullable(),
});

const callSchema = z.object({
  index: z.number().int(),
  incarnation: z.number().int().nonnegative().catch(0),
  at: z.number(),
  modelId: z.string(),
  request: z.object({
    kept: z.number().int().nonnegative(),
    messages: z.array(z.unknown()),
    tools: z.array(z.string()).catch([]),
    settings: z.record(z.string(), z.unknown()).catch({}),
  }),
  reply: z
    .object({
      text: z.string(),
      toolCalls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown() })),
      finishReason: z.string(),
    })
    .nullable()
    .catch(null),
  error: z.object({ class: z.string(), message: z.string() }).nullable().catch(null),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }),
  costUsd: z.number().catch(0),
  latencyMs: z.number().catch(0),
  fault: z.string().nullable().catch(null),
});

export type TranscriptModel = z.infer<typeof modelSchema>;

/** One model call as the reports show it. */
export type TranscriptCall = z.infer<typeof callSchema> & {
  /**
   * The `kept` messages it shares with the call before, rebuilt from the earlier deltas; null
   * when they cannot be (an earlier call was unreadable): then only their number is known.
   */
  readonly earlier: readonly unknown[] | null;
};

export interface Transcript {
  /** The model the run was given (null: none, or not recorded). */
  readonly model: TranscriptModel | null;
  readonly calls: readonly TranscriptCall[];
  /** Calls in the file whose shape this report does not read (left out). */
  readonly unreadable: number;
}

/**
 * The model transcript of a parsed trajectory; null when the run had no model and made no
 * model call (nothing to show).
 *
 * @example
 * ```ts
 * const transcript = readTranscript(JSON.parse(readFileSync(file, 'utf8')));
 * transcript?.calls[1]?.earlier; // the messages call 2 kept from call 1
 * ```
 */
export function readTranscript(trajectory: unknown): Transcript | null {
  if (trajectory === null || typeof trajectory !== 'object') return null;
  const raw = trajectory as { model?: unknown; modelCalls?: unknown };
  const model = modelSchema.safeParse(raw.model);
  const rawCalls = Array.isArray(raw.modelCalls) ? (raw.modelCalls as unknown[]) : [];
  if (!model.success && rawCalls.length === 0) return null;
  const calls: TranscriptCall[] = [];
  let unreadable = 0;
  // The full request of the call before, or null when it could not be read.
  let previous: readonly unknown[] | null = [];
  for (const item of rawCalls) {
    const parsed = callSchema.safeParse(item);
    if (!parsed.success) {
      unreadable++;
      previous = null;
      continue;
    }
    const call = parsed.data;
    const { kept } = call.request;
    const earlier: readonly unknown[] | null =
      previous !== null && kept <= previous.length ? previous.slice(0, kept) : null;
    calls.push({ ...call, earlier });
    previous = earlier === null ? null : [...earlier, ...call.request.messages];
  }
  return { model: model.success ? model.data : null, calls, unreadable };
}

/** One piece of a message, as shown. */
export type MessagePart =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'tool-call';
      readonly id: string;
      readonly name: string;
      readonly args: unknown;
    }
  | {
      readonly kind: 'tool-result';
      readonly id: string;
      readonly name: string;
      readonly output: unknown;
    }
  /** Anything else (files, reasoning, a part of an unknown type): its type and the raw part. */
  | { readonly kind: 'other'; readonly type: string; readonly value: unknown };

/** A message of a request: who speaks, and its parts. */
export interface MessageView {
  readonly role: string;
  readonly parts: readonly MessagePart[];
}

/**
 * A request message (the AI SDK's language model prompt message, as recorded) as a role and its
 * parts: text, tool calls with their arguments, tool results with their output.
 */
export function messageView(message: unknown): MessageView {
  if (message === null || typeof message !== 'object')
    return { role: 'unknown', parts: [{ kind: 'other', type: typeof message, value: message }] };
  const { role, content } = message as { role?: unknown; content?: unknown };
  const shownRole = typeof role === 'string' ? role : 'unknown';
  if (typeof content === 'string')
    return { role: shownRole, parts: [{ kind: 'text', text: content }] };
  if (!Array.isArray(content))
    return { role: shownRole, parts: [{ kind: 'other', type: 'message', value: message }] };
  return { role: shownRole, parts: (content as unknown[]).map(partView) };
}

function partView(part: unknown): MessagePart {
  if (part === null || typeof part !== 'object')
    return { kind: 'other', type: typeof part, value: part };
  const p = part as Record<string, unknown>;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  switch (p.type) {
    case 'text':
      if (typeof p.text === 'string') return { kind: 'text', text: p.text };
      break;
    case 'tool-call':
      return {
        kind: 'tool-call',
        id: str(p.toolCallId),
        name: str(p.toolName),
        args: p.input ?? p.args,
      };
    case 'tool-result':
      return {
        kind: 'tool-result',
        id: str(p.toolCallId),
        name: str(p.toolName),
        output: outputValue(p.output ?? p.result),
      };
  }
  return { kind: 'other', type: typeof p.type === 'string' ? p.type : 'part', value: part };
}

/** A tool result's output: the value of the SDK's `{ type, value }` wrapper, else as is. */
function outputValue(output: unknown): unknown {
  if (output !== null && typeof output === 'object' && 'type' in output && 'value' in output)
    return output.value;
  return output;
}
