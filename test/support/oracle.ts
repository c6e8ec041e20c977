import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import type { ModelSetup } from '../../models/model-setup.js';
import {
  chatReplyTokens,
  chatRequestTokens,
  type ChatRequestLike,
  type TokenEncoder,
} from '../../models/token-count.js';
import { approvalRequired } from '../../runtime/policy.js';
import { evaluate, resolveValue } from '../../runtime/predicate.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import type { Scenario } from '../../scenarios/scenario.js';
import {
  OPENAI_BASE_URL,
  type ProviderMessage,
  type ProviderRequest,
  type Respond,
} from './provider-server.js';

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
 * transcript gets the plan again from the top. It is served over HTTP by the provider server
 * (`startProviderServer(oracleRespond())`), so the AI SDK's real provider code (OpenAI,
 * Anthropic or OpenAI-compatible) carries every request and reply.
 */

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
  request: Pick<ProviderRequest, 'messages'>,
  scenarios: readonly Scenario[] = BUILT_IN_SCENARIOS,
): Scenario {
  const text = request.messages.find((m) => m.role === 'user')?.text ?? '';
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
  request: Pick<ProviderRequest, 'messages'>,
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
          `the approval for ${op.tool} was denied (${JSON.stringify(field(state, 'reason') ?? 'no reason given')})`,
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
function seenIn(messages: readonly ProviderMessage[]): Seen[] {
  const results = new Map<string, string>();
  for (const m of messages)
    if (m.role === 'tool' && m.toolCallId !== undefined) results.set(m.toolCallId, m.text);
  return messages.flatMap((m) =>
    (m.toolCalls ?? []).map((call): Seen => {
      const text = results.get(call.id);
      if (text === undefined)
        return { tool: call.name, ok: false, value: null, error: 'no result' };
      try {
        return { tool: call.name, ok: true, value: JSON.parse(text) as unknown, error: '' };
      } catch {
        return { tool: call.name, ok: false, value: null, error: text };
      }
    }),
  );
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
 * The oracle as a provider-server `respond`: its move as a reply, with usage counted on the
 * request as sent (system, messages, tool calls and results, tool definitions) and on the
 * reply (see `encoder`). A request it cannot answer is a 400 in the provider's error shape.
 *
 * @example
 * ```ts
 * const provider = startProviderServer(oracleRespond());
 * ```
 */
export function oracleRespond(options: OracleOptions = {}): Respond {
  const counter = options.encoder ?? ESTIMATE;
  return (request) => {
    let move: OracleMove;
    try {
      move = oracleMove(request, options);
    } catch (error) {
      if (!(error instanceof OracleError)) throw error;
      return {
        status: 400,
        body: { error: { message: error.message, type: 'invalid_request_error' } },
      };
    }
    const inputTokens = chatRequestTokens(asChat(request), counter);
    if (move.kind === 'call') {
      const outputTokens = chatReplyTokens(
        { toolCalls: [{ name: move.tool, arguments: JSON.stringify(move.args) }] },
        counter,
      );
      return {
        toolCalls: [{ name: move.tool, args: move.args }],
        usage: { inputTokens, outputTokens },
      };
    }
    return {
      text: move.text,
      usage: { inputTokens, outputTokens: chatReplyTokens({ text: move.text }, counter) },
    };
  };
}

/** A request in the chat shape the token counter reads, whatever API it came over. */
export function asChat(
  request: Pick<ProviderRequest, 'system' | 'messages' | 'tools'>,
): ChatRequestLike {
  return {
    messages: [
      ...(request.system === '' ? [] : [{ role: 'system', content: request.system }]),
      ...request.messages.map((m) => ({
        role: m.role,
        content: m.text,
        ...(m.toolCalls
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                function: { name: c.name, arguments: JSON.stringify(c.args) },
              })),
            }
          : {}),
      })),
    ],
    tools: request.tools,
  };
}

/** The (fake) key's environment variable for {@link ORACLE_MODEL}. */
export const ORACLE_KEY_ENV = 'FAULTLINE_ORACLE_KEY';

/**
 * `openai:gpt-test` at the provider server's OpenAI base URL: the real OpenAI provider code
 * over HTTP. Set `process.env[ORACLE_KEY_ENV]` (any value) and start the server with
 * {@link oracleRespond}.
 */
export const ORACLE_MODEL: ModelSetup = {
  spec: 'openai:gpt-test',
  provider: 'openai',
  api: 'openai',
  modelId: 'gpt-test',
  baseURL: OPENAI_BASE_URL,
  apiKeyEnv: ORACLE_KEY_ENV,
};
