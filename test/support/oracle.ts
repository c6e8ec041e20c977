import { http, HttpResponse, type HttpHandler } from 'msw';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import type { ModelSetup } from '../../models/model-setup.js';
import {
  chatReplyTokens,
  chatRequestTokens,
  type ChatMessageLike,
  type TokenEncoder,
} from '../../models/token-count.js';
import { approvalRequired } from '../../runtime/policy.js';
import { evaluate, resolveValue } from '../../runtime/predicate.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import type { Scenario } from '../../scenarios/scenario.js';

/**
 * The scripted ("oracle") model: it answers an OpenAI Chat Completions request the way a
 * capable model would, computed from the request alone. It finds the scenario by the objective
 * in the first user message, follows the scenario's blueprint — each operation's arguments
 * resolved from the tool results already in the conversation (`$ref`s into the input and
 * earlier results), an operation whose `when` does not hold skipped — and answers with the
 * next tool call, or a final text when the plan is done.
 *
 * How it behaves where a model must judge (decided here, once):
 * - Approvals: where the scenario's contract requires one for a write (`approvalRequired`,
 *   the runtime's own rule), it calls `request_approval` with the exact change, then
 *   `wait_for_approval` until decided, and sends the write with the granted `approval_token`
 *   — a model told its approval policy. A denial ends the job: `STOPPED: …`.
 * - Failures: a failure that looks temporary (transient, timeout, rate limited, unavailable,
 *   a request that timed out) is retried at once with the same arguments, up to `retries`
 *   times — what a chat model does, with no backoff and no check of whether the lost call
 *   took effect; any other refusal ends the job: `STOPPED: …`.
 * - Idempotency keys: never sent. An ordinary model leaves an optional argument it has no
 *   use for empty; that is the tool loop's flaw to show.
 * - No fresh reads, no reconciliation, no checks: only the blueprint's own operations.
 *
 * Everything it knows comes from the conversation, so a loop that restarts with an empty
 * transcript gets the plan again from the top.
 */

/** An OpenAI Chat Completions request body, as the oracle reads it. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: { type: 'function'; function: { name: string } }[];
}

export interface ChatMessage extends ChatMessageLike {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
}

/** What the oracle says next. */
export type OracleMove =
  { kind: 'call'; tool: string; args: Record<string, unknown> } | { kind: 'text'; text: string };

export interface OracleOptions {
  /** Where it looks the objective up (the built-in library by default). */
  scenarios?: readonly Scenario[];
  /** Immediate resends of a call that failed in a way that looks temporary (default 2). */
  retries?: number;
  /** How long each `wait_for_approval` waits: under an MCP client's 60 s request timeout. */
  approvalWaitMs?: number;
  /**
   * What the usage it reports is counted with: {@link o200k} for real counts (building it takes
   * seconds), else a cheap estimate of one token per four characters — enough for tests.
   */
  encoder?: TokenEncoder;
}

/** A request the oracle cannot answer (no scenario has its objective): a defect in a test. */
export class OracleError extends Error {
  override readonly name = 'OracleError';
}

/** One tool call of the conversation with what came back. */
interface Seen {
  tool: string;
  ok: boolean;
  value: unknown;
  error: string;
}

const TEMPORARY = /^(transient|timeout|rate_limited|unavailable)\b|timed out|timeout/i;

/**
 * The scenario a request is about: the one whose objective the first user message holds (the
 * one whose input it also holds, when objectives repeat).
 */
export function scenarioOf(
  request: Pick<ChatRequest, 'messages'>,
  scenarios: readonly Scenario[] = BUILT_IN_SCENARIOS,
): Scenario {
  const first = request.messages.find((m) => m.role === 'user');
  const text = first ? textOf(first.content) : '';
  const matching = scenarios.filter((s) => text.includes(s.contract.objective));
  const byInput = matching.filter((s) => text.includes(JSON.stringify(s.input)));
  const found = byInput[0] ?? matching[0];
  if (!found)
    throw new OracleError(
      `oracle: no scenario has the objective in the first user message (${JSON.stringify(text.slice(0, 120))})`,
    );
  return found;
}

/** The oracle's next move for a conversation (see the module's notes). */
export function oracleMove(
  request: Pick<ChatRequest, 'messages'>,
  options: OracleOptions = {},
): OracleMove {
  const scenario = scenarioOf(request, options.scenarios);
  const retries = options.retries ?? 2;
  const waitMs = options.approvalWaitMs ?? 55_000;
  const seen = seenIn(request.messages);
  let cursor = 0;
  let next: OracleMove | undefined;
  /** The outcome of this call if the conversation has it; else it is the next move. */
  const take = (tool: string, args: Record<string, unknown>): Seen | undefined => {
    const outcome = seen[cursor];
    if (!outcome) {
      next = { kind: 'call', tool, args };
      return undefined;
    }
    cursor++;
    return outcome;
  };
  const scope: Record<string, unknown> = { input: scenario.input };
  const done: string[] = [];
  for (const op of scenario.blueprint.operations) {
    if (op.when && !evaluate(op.when, scope)) continue;
    const args = Object.fromEntries(
      Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, scope)]),
    );
    let sent = args;
    const needsApproval = approvalRequired(scenario.contract, {
      actionId: op.id,
      tool: op.tool,
      kind: op.kind,
      args,
      origin: 'blueprint',
    });
    if (needsApproval) {
      const asked = take('request_approval', { tool: op.tool, arguments: args });
      if (!asked) return next!;
      if (!asked.ok) return stop(`asking approval for ${op.tool} failed (${asked.error})`);
      const requestId = String(field(asked.value, 'request_id'));
      let state = asked.value;
      while (field(state, 'status') === 'pending') {
        const waited = take('wait_for_approval', { request_id: requestId, timeout_ms: waitMs });
        if (!waited) return next!;
        if (!waited.ok && !TEMPORARY.test(waited.error))
          return stop(`waiting for the approval of ${op.tool} failed (${waited.error})`);
        state = waited.ok ? waited.value : { status: 'pending' };
      }
      if (field(state, 'status') !== 'granted')
        return stop(
          `the approval for ${op.tool} was denied (${String(field(state, 'reason') ?? 'no reason given')})`,
        );
      sent = { ...args, approval_token: field(state, 'approval_token') };
    }
    let outcome: Seen | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      outcome = take(op.tool, sent);
      if (!outcome) return next!;
      if (outcome.ok || !TEMPORARY.test(outcome.error)) break;
    }
    if (!outcome?.ok) return stop(`${op.tool} failed (${outcome?.error ?? 'no reply'})`);
    scope[op.id] = outcome.value;
    done.push(op.description || op.tool);
  }
  return { kind: 'text', text: `Done: ${done.join('; ')}.` };
}

function stop(why: string): OracleMove {
  return { kind: 'text', text: `STOPPED: ${why}` };
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/**
 * Every tool call of the conversation, in order, with its result: JSON is data; text that is
 * not JSON is how the AI SDK reports a tool that threw (the error's message), so a refusal.
 */
function seenIn(messages: readonly ChatMessage[]): Seen[] {
  const results = new Map<string, string>();
  for (const m of messages)
    if (m.role === 'tool' && m.tool_call_id !== undefined)
      results.set(m.tool_call_id, textOf(m.content));
  return messages.flatMap((m) =>
    (m.tool_calls ?? []).map((call): Seen => {
      const text = results.get(call.id);
      if (text === undefined)
        return { tool: call.function.name, ok: false, value: null, error: 'no result' };
      try {
        return {
          tool: call.function.name,
          ok: true,
          value: JSON.parse(text) as unknown,
          error: '',
        };
      } catch {
        return { tool: call.function.name, ok: false, value: null, error: text };
      }
    }),
  );
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p: unknown) =>
        typeof p === 'object' && p !== null && 'text' in p ? String(p.text) : '',
      )
      .join('');
  return '';
}

let encoder: Tiktoken | undefined;

/** js-tiktoken's o200k_base (GPT-4o's tokenizer), built once (it takes a few seconds). */
export function o200k(): TokenEncoder {
  encoder ??= new Tiktoken(o200k_base);
  return encoder;
}

/** One token per four characters: the usual rule of thumb, for tests that need no real count. */
const ESTIMATE: TokenEncoder = { encode: (text) => new Uint32Array(Math.ceil(text.length / 4)) };

/**
 * The oracle's answer as an OpenAI Chat Completions response body, its usage counted on the
 * request as sent and on the reply (see `encoder`).
 */
export function oracleCompletion(body: ChatRequest, options: OracleOptions = {}): object {
  const move = oracleMove(body, options);
  const calls = body.messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
  const call =
    move.kind === 'call'
      ? { id: `call_${calls + 1}`, name: move.tool, arguments: JSON.stringify(move.args) }
      : undefined;
  const counter = options.encoder ?? ESTIMATE;
  const prompt = chatRequestTokens(body, counter);
  const completion = chatReplyTokens(
    move.kind === 'call'
      ? { toolCalls: [{ name: call!.name, arguments: call!.arguments }] }
      : { text: move.text },
    counter,
  );
  return {
    id: `chatcmpl-oracle-${calls + 1}`,
    object: 'chat.completion',
    created: 0,
    model: body.model,
    choices: [
      {
        index: 0,
        message: call
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                },
              ],
            }
          : { role: 'assistant', content: move.kind === 'text' ? move.text : '' },
        finish_reason: call ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  };
}

/** Where the oracle is served, as an OpenAI-API base URL. */
export const ORACLE_BASE_URL = 'https://oracle.faultline.test/v1';
/** The environment variable the oracle's model setup reads its (fake) key from. */
export const ORACLE_KEY_ENV = 'FAULTLINE_ORACLE_KEY';

/**
 * `openai:gpt-test` served by the oracle: the real OpenAI provider code over HTTP. Set
 * `process.env[ORACLE_KEY_ENV]` (any value) and listen with {@link oracleHandlers}.
 */
export const ORACLE_MODEL: ModelSetup = {
  spec: 'openai:gpt-test',
  provider: 'openai',
  api: 'openai',
  modelId: 'gpt-test',
  baseURL: ORACLE_BASE_URL,
  apiKeyEnv: ORACLE_KEY_ENV,
};

/**
 * msw handlers serving the oracle as the OpenAI Chat Completions API at `baseURL`; each
 * request body, as sent, goes to `onRequest` (a bench counts its tokens). A request the oracle
 * cannot answer is a 400 in OpenAI's error shape.
 *
 * @example
 * ```ts
 * const server = setupServer(...oracleHandlers());
 * server.listen({ onUnhandledRequest: 'error' });
 * ```
 */
export function oracleHandlers(
  options: OracleOptions & { baseURL?: string; onRequest?: (body: ChatRequest) => void } = {},
): HttpHandler[] {
  const base = options.baseURL ?? ORACLE_BASE_URL;
  return [
    http.post(`${base}/chat/completions`, async ({ request }) => {
      const body = (await request.json()) as ChatRequest;
      options.onRequest?.(body);
      try {
        return HttpResponse.json(oracleCompletion(body, options));
      } catch (error) {
        if (!(error instanceof OracleError)) throw error;
        return HttpResponse.json(
          { error: { message: error.message, type: 'invalid_request_error', code: null } },
          { status: 400 },
        );
      }
    }),
  ];
}
