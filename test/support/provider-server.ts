import { delay, http, HttpResponse } from 'msw';
import { setupServer, type SetupServer } from 'msw/node';

/**
 * msw handlers that speak the OpenAI Chat Completions and Anthropic Messages wire formats, so
 * the real `@ai-sdk/openai`, `@ai-sdk/anthropic` and `@ai-sdk/openai-compatible` code runs over
 * HTTP in tests. What the "model" answers is the test's `respond` callback: it sees each request
 * normalised (system, messages, tools) and returns a reply, an HTTP error, or a malformed body.
 */

/** The base URLs the server answers (give them to the provider as `baseURL`). */
export const OPENAI_BASE_URL = 'https://openai.test/v1';
export const ANTHROPIC_BASE_URL = 'https://anthropic.test/v1';
export const COMPAT_BASE_URL = 'https://compat.test/v1';

export type ProviderApi = 'openai' | 'anthropic' | 'openai-compatible';

/** A tool call, either direction: `args` are the parsed arguments. */
export interface ProviderToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
}

/** One message of a request, the same shape whatever the wire format. */
export interface ProviderMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  /** The message's text parts joined with newlines ('' when none). */
  readonly text: string;
  /** Assistant messages: the tool calls it made. */
  readonly toolCalls?: readonly ProviderToolCall[];
  /** Tool results: the call they answer, and the result as sent. */
  readonly toolCallId?: string;
  readonly result?: unknown;
}

export interface ProviderTool {
  readonly name: string;
  readonly description?: string;
  readonly parameters: unknown;
}

/** A request as `respond` sees it. */
export interface ProviderRequest {
  readonly provider: ProviderApi;
  readonly model: string;
  /** All system text (OpenAI system/developer messages, Anthropic `system`), joined. */
  readonly system: string;
  readonly messages: readonly ProviderMessage[];
  readonly tools: readonly ProviderTool[];
  /** OpenAI `response_format` json_schema's schema, when structured output was asked for. */
  readonly responseSchema?: unknown;
  readonly stream: boolean;
  /** The request body as parsed JSON. */
  readonly body: Record<string, unknown>;
  /** Lower-cased header names (the key is in `authorization` or `x-api-key`). */
  readonly headers: Readonly<Record<string, string>>;
  /** 1-based, over the whole server. */
  readonly index: number;
}

/** A model's answer: text, tool calls (or both), and the usage the provider reports. */
export interface ProviderReply {
  readonly text?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly args: unknown }[];
  /** Defaults: 10 input, 5 output tokens. */
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /** Real milliseconds to wait before answering (for timeouts); `'infinite'` never answers. */
  readonly delayMs?: number | 'infinite';
}

/**
 * An HTTP failure (429 with `retry-after`, 5xx, 401) or, with status 200 and a string body, a
 * malformed reply. An object body is sent as JSON; absent, a provider-shaped error body.
 */
export interface ProviderFailure {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly delayMs?: number | 'infinite';
}

export type ProviderAnswer = ProviderReply | ProviderFailure;

export type Respond = (request: ProviderRequest) => ProviderAnswer | Promise<ProviderAnswer>;

/** One exchange the server saw. */
export interface ProviderCall {
  readonly request: ProviderRequest;
  readonly answer: ProviderAnswer;
}

export interface ProviderServer {
  readonly server: SetupServer;
  /** Every request, in order, with what was answered. */
  readonly calls: ProviderCall[];
  close(): void;
}

/**
 * Starts an msw server answering the three base URLs with `respond`. Unhandled requests are
 * errors (no live call can slip through). Close it in `afterAll`/`afterEach`.
 *
 * @example
 * const provider = startProviderServer(() => ({ text: 'done' }));
 * const model = createOpenAI({ apiKey: 'sk-test', baseURL: OPENAI_BASE_URL }).chat('gpt-4o-mini');
 * await generateText({ model, prompt: 'hi' });
 * provider.close();
 */
export function startProviderServer(respond: Respond): ProviderServer {
  const calls: ProviderCall[] = [];
  let ids = 0;
  const nextId = (): number => ++ids;

  const handle = async (provider: ProviderApi, request: Request): Promise<Response> => {
    const body = (await request.json()) as Record<string, unknown>;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const normalised =
      provider === 'anthropic'
        ? normaliseAnthropic(body, headers, calls.length + 1)
        : normaliseOpenAI(provider, body, headers, calls.length + 1);
    const answer = await respond(normalised);
    calls.push({ request: normalised, answer });
    if (answer.delayMs !== undefined) await delay(answer.delayMs);
    if (isFailure(answer)) return failureResponse(provider, answer);
    if (provider === 'anthropic') {
      return normalised.stream
        ? anthropicStream(normalised, answer, nextId)
        : HttpResponse.json(anthropicBody(normalised, answer, nextId));
    }
    return normalised.stream
      ? openAIStream(normalised, answer, nextId)
      : HttpResponse.json(openAIBody(normalised, answer, nextId));
  };

  const server = setupServer(
    http.post(`${OPENAI_BASE_URL}/chat/completions`, ({ request }) => handle('openai', request)),
    http.post(`${COMPAT_BASE_URL}/chat/completions`, ({ request }) =>
      handle('openai-compatible', request),
    ),
    http.post(`${ANTHROPIC_BASE_URL}/messages`, ({ request }) => handle('anthropic', request)),
  );
  server.listen({ onUnhandledRequest: 'error' });
  return {
    server,
    calls,
    close: () => {
      server.close();
    },
  };
}

/**
 * A `respond` that gives the answers in order, one per request, and fails the request loudly
 * (HTTP 599 naming the index) when the script runs out.
 */
export function scriptedAnswers(answers: readonly ProviderAnswer[]): Respond {
  let next = 0;
  return () =>
    answers[next++] ?? {
      status: 599,
      body: { error: { message: `provider script exhausted after ${String(answers.length)}` } },
    };
}

function isFailure(answer: ProviderAnswer): answer is ProviderFailure {
  return 'status' in answer;
}

const DEFAULT_USAGE = { inputTokens: 10, outputTokens: 5 };

function failureResponse(provider: ProviderApi, failure: ProviderFailure): Response {
  const headers = { ...failure.headers };
  if (typeof failure.body === 'string') {
    return new HttpResponse(failure.body, {
      status: failure.status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  }
  const body =
    failure.body ??
    (provider === 'anthropic'
      ? {
          type: 'error',
          error: {
            type: anthropicErrorType(failure.status),
            message: `HTTP ${String(failure.status)}`,
          },
        }
      : {
          error: {
            message: `HTTP ${String(failure.status)}`,
            type: failure.status === 429 ? 'rate_limit_exceeded' : 'server_error',
            code: null,
            param: null,
          },
        });
  return HttpResponse.json(body as Record<string, unknown>, { status: failure.status, headers });
}

function anthropicErrorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 529) return 'overloaded_error';
  return 'api_error';
}

// ---- OpenAI Chat Completions -------------------------------------------------------------

interface OpenAIWireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter(
        (p): p is { type: 'text'; text: string } =>
          typeof p === 'object' && p !== null && (p as { type?: unknown }).type === 'text',
      )
      .map((p) => p.text)
      .join('\n');
  }
  return '';
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function normaliseOpenAI(
  provider: ProviderApi,
  body: Record<string, unknown>,
  headers: Record<string, string>,
  index: number,
): ProviderRequest {
  const wire = (body.messages ?? []) as OpenAIWireMessage[];
  const system = wire
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n');
  const messages: ProviderMessage[] = wire
    .filter((m) => m.role !== 'system' && m.role !== 'developer')
    .map((m): ProviderMessage => {
      if (m.role === 'tool') {
        return {
          role: 'tool',
          text: textOf(m.content),
          toolCallId: m.tool_call_id ?? '',
          result: parseArgs(textOf(m.content)),
        };
      }
      if (m.role === 'assistant') {
        const toolCalls = (m.tool_calls ?? []).map((c) => ({
          id: c.id,
          name: c.function.name,
          args: parseArgs(c.function.arguments),
        }));
        return {
          role: 'assistant',
          text: textOf(m.content),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        };
      }
      return { role: 'user', text: textOf(m.content) };
    });
  const tools = (
    (body.tools ?? []) as {
      function: { name: string; description?: string; parameters: unknown };
    }[]
  ).map((t) => ({
    name: t.function.name,
    ...(t.function.description === undefined ? {} : { description: t.function.description }),
    parameters: t.function.parameters,
  }));
  const format = body.response_format as
    { type: string; json_schema?: { schema?: unknown } } | undefined;
  return {
    provider,
    model: String(body.model),
    system,
    messages,
    tools,
    ...(format?.type === 'json_schema' ? { responseSchema: format.json_schema?.schema } : {}),
    stream: body.stream === true,
    body,
    headers,
    index,
  };
}

function openAIToolCalls(reply: ProviderReply, nextId: () => number) {
  return (reply.toolCalls ?? []).map((c) => ({
    id: `call_${String(nextId())}`,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
}

function openAIUsage(reply: ProviderReply) {
  const usage = reply.usage ?? DEFAULT_USAGE;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function openAIBody(request: ProviderRequest, reply: ProviderReply, nextId: () => number) {
  const toolCalls = openAIToolCalls(reply, nextId);
  return {
    id: `chatcmpl-${String(nextId())}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: request.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: openAIUsage(reply),
  };
}

function sse(events: readonly unknown[], done: boolean): Response {
  const text =
    events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
  return new HttpResponse(text, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  });
}

function openAIStream(request: ProviderRequest, reply: ProviderReply, nextId: () => number) {
  const id = `chatcmpl-${String(nextId())}`;
  const base = {
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: request.model,
  };
  const toolCalls = openAIToolCalls(reply, nextId);
  const chunks: unknown[] = [
    {
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    },
  ];
  // The text in two pieces, so a consumer really assembles deltas.
  const text = reply.text ?? '';
  const half = Math.ceil(text.length / 2);
  for (const piece of [text.slice(0, half), text.slice(half)]) {
    if (piece !== '')
      chunks.push({
        ...base,
        choices: [{ index: 0, delta: { content: piece }, finish_reason: null }],
      });
  }
  toolCalls.forEach((call, i) => {
    chunks.push({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index: i, ...call }] }, finish_reason: null }],
    });
  });
  chunks.push({
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop' }],
  });
  chunks.push({ ...base, choices: [], usage: openAIUsage(reply) });
  return sse(chunks, true);
}

// ---- Anthropic Messages --------------------------------------------------------------------

type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: unknown };

function normaliseAnthropic(
  body: Record<string, unknown>,
  headers: Record<string, string>,
  index: number,
): ProviderRequest {
  const system = textOf(body.system);
  const messages: ProviderMessage[] = [];
  for (const m of (body.messages ?? []) as { role: string; content: string | AnthropicBlock[] }[]) {
    const blocks: AnthropicBlock[] =
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    const text = blocks
      .filter((b): b is { type: 'text'; text: string } => b.type === 'text')
      .map((b) => b.text)
      .join('\n');
    if (m.role === 'assistant') {
      const toolCalls = blocks
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: b.id, name: b.name, args: b.input }));
      messages.push({ role: 'assistant', text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
      continue;
    }
    // A user turn carries tool results as blocks: each becomes its own tool message.
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const resultText = textOf(b.content);
      messages.push({
        role: 'tool',
        text: resultText,
        toolCallId: b.tool_use_id,
        result: parseArgs(resultText),
      });
    }
    if (text !== '' || blocks.every((b) => b.type !== 'tool_result'))
      messages.push({ role: 'user', text });
  }
  const tools = (
    (body.tools ?? []) as { name: string; description?: string; input_schema: unknown }[]
  ).map((t) => ({
    name: t.name,
    ...(t.description === undefined ? {} : { description: t.description }),
    parameters: t.input_schema,
  }));
  return {
    provider: 'anthropic',
    model: String(body.model),
    system,
    messages,
    tools,
    stream: body.stream === true,
    body,
    headers,
    index,
  };
}

function anthropicContent(reply: ProviderReply, nextId: () => number) {
  const content: AnthropicBlock[] = [];
  if (reply.text !== undefined && reply.text !== '')
    content.push({ type: 'text', text: reply.text });
  for (const c of reply.toolCalls ?? [])
    content.push({
      type: 'tool_use',
      id: `toolu_${String(nextId())}`,
      name: c.name,
      input: c.args,
    });
  return content;
}

function anthropicBody(request: ProviderRequest, reply: ProviderReply, nextId: () => number) {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const content = anthropicContent(reply, nextId);
  return {
    id: `msg_${String(nextId())}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  };
}

function anthropicStream(request: ProviderRequest, reply: ProviderReply, nextId: () => number) {
  const usage = reply.usage ?? DEFAULT_USAGE;
  const content = anthropicContent(reply, nextId);
  const events: { event: string; data: unknown }[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: `msg_${String(nextId())}`,
          type: 'message',
          role: 'assistant',
          model: request.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.inputTokens, output_tokens: 0 },
        },
      },
    },
  ];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      });
      events.push({
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: block.text },
        },
      });
    } else if (block.type === 'tool_use') {
      events.push({
        event: 'content_block_start',
        data: {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        },
      });
      events.push({
        event: 'content_block_delta',
        data: {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        },
      });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: {
        stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
        stop_sequence: null,
      },
      usage: { output_tokens: usage.outputTokens },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  const text = events.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`).join('');
  return new HttpResponse(text, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  });
}
