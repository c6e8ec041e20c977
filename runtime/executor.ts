import type { ToolView } from './working-context.js';
import { getEventListeners } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { BoundedCache } from './bounded-cache.js';
import { systemClock, type Clock } from './clock.js';
import { contentHash } from './contract.js';
import type { ToolErrorClass } from './failure-class.js';
import { META, toolErrorSchema, type Trust } from './protocol.js';
import { schemaText, sharedSchemaValidators } from './schema-validators.js';

/** What came back from one tool call, classified. `no-reply` is ambiguous for a write. */
export type CallOutcome =
  | { kind: 'ok'; result: unknown; trust: Trust }
  | {
      kind: 'error';
      class: ToolErrorClass | 'malformed_reply';
      message: string;
      retryAfterMs?: number;
    }
  | { kind: 'no-reply'; reason: 'timeout' | 'connection-lost'; message: string };

export interface CallRequest {
  tool: string;
  args: Record<string, unknown>;
  /** Request `_meta`: credential, idempotency key, run and operation ids, approval token. */
  meta: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The SDK's own timer must never fire first: our clock decides timeouts. */
const SDK_TIMEOUT_MS = 2_147_483_647;

/**
 * Tool-schema hashes by the schemas' JSON text. Every incarnation of every run lists the same
 * few worlds' tools, and the canonical hash (keys sorted, then SHA-256) of a world's schemas
 * costs about a twentieth of a run; the same text always has the same canonical form, so the text
 * is a safe key. The key is made of each schema's text as the validators took it (see
 * `schemaText`): the listed schemas are serialized once, not once more for the key.
 */
const schemasHashes = new BoundedCache<string, string>(64);

function schemasHash(tools: readonly Tool[]): string {
  // JSON texts joined by characters JSON escapes inside a string: one text, one list of tools.
  let key = '';
  for (const t of tools)
    key += `${JSON.stringify(t.name)}\u0000${schemaText(t.inputSchema)}\u0000${t.outputSchema ? schemaText(t.outputSchema) : 'null'}\u0001`;
  return schemasHashes.get(key, () =>
    contentHash(
      tools.map((t) => ({ name: t.name, input: t.inputSchema, output: t.outputSchema ?? null })),
    ),
  );
}

/**
 * Calls allow-listed tools over an MCP client: arguments checked against the tool's input
 * schema before anything is sent, timeouts on the runtime's clock (aborting the request
 * through its signal), and every result classified into a failure class.
 */
export class Executor {
  private readonly validators = new Map<string, JsonSchemaValidator<unknown>>();
  private schemasHash = '';
  /** The abort controller lent to a call made while no other is in flight (see {@link call}). */
  private spare: AbortController | undefined;
  private inFlight = 0;
  /** The world's tools as listed, for a planner that writes the plan. */
  tools: readonly ToolView[] = [];

  constructor(
    private readonly client: Client,
    private readonly clock: Clock,
  ) {}

  /** Loads tool schemas once; returns their hash, recorded as the run's tool-schema version. */
  async loadTools(): Promise<string> {
    const { tools } = await this.client.listTools();
    this.tools = tools.map((t) => ({
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema,
    }));
    for (const tool of tools) {
      this.validators.set(
        tool.name,
        sharedSchemaValidators.getValidator(tool.inputSchema as JsonSchemaType),
      );
    }
    this.schemasHash = schemasHash(tools);
    return this.schemasHash;
  }

  hasTool(name: string): boolean {
    return this.validators.has(name);
  }

  /** Checks arguments against the tool's schema; a message when they do not fit. */
  checkArgs(tool: string, args: Record<string, unknown>): string | undefined {
    const validate = this.validators.get(tool);
    if (!validate) return `the world has no tool ${tool}`;
    const result = validate(args);
    return result.valid
      ? undefined
      : `arguments for ${tool} do not fit its schema: ${result.errorMessage}`;
  }

  /**
   * Calls a tool and classifies what came back. Not itself async: the call's own promise is
   * handed back, one hop fewer on every call.
   */
  call(request: CallRequest): Promise<CallOutcome> {
    const invalid = this.checkArgs(request.tool, request.args);
    if (invalid)
      return Promise.resolve({ kind: 'error', class: 'invalid_argument', message: invalid });
    return this.clock === systemClock && !request.signal
      ? this.callOnWallClock(request)
      : this.callOnClock(request);
  }

  /** A call whose deadline is a timer on the runtime's clock, which aborts it through its signal. */
  private async callOnClock(request: CallRequest): Promise<CallOutcome> {
    // Each request needs a signal that aborts it alone. Making one costs more than the rest of a
    // call's bookkeeping, so a call made while none other is in flight borrows a spare one;
    // overlapping calls get their own, and an aborted one is never lent again.
    const abort =
      this.inFlight === 0 ? (this.spare ??= new AbortController()) : new AbortController();
    this.inFlight++;
    const outer = request.signal;
    let onOuterAbort: (() => void) | undefined;
    if (outer) {
      onOuterAbort = () => {
        abort.abort(outer.reason);
      };
      outer.addEventListener('abort', onOuterAbort, { once: true });
    }
    // Aborting makes the SDK reject the request at once (and tell the server), so the timeout
    // is seen as that rejection: one timer and one awaited promise a call, nothing raced.
    const deadline = { passed: false };
    const cancelTimer = this.clock.setTimer(request.timeoutMs, () => {
      deadline.passed = true;
      abort.abort(new Error(`timed out after ${request.timeoutMs} ms`));
    });
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await this.client.callTool(
        { name: request.tool, arguments: request.args, _meta: request.meta },
        undefined,
        { signal: abort.signal, timeout: SDK_TIMEOUT_MS },
      );
    } catch (error) {
      if (deadline.passed) {
        return {
          kind: 'no-reply',
          reason: 'timeout',
          message: `no reply from ${request.tool} within ${request.timeoutMs} ms`,
        };
      }
      return classifyThrown(request.tool, error);
    } finally {
      this.inFlight--;
      cancelTimer();
      if (onOuterAbort) outer?.removeEventListener('abort', onOuterAbort);
      if (abort === this.spare) this.returnSpare(abort);
    }
    return classifyResult(result);
  }

  /**
   * A call on the system clock with no harness signal: the runtime's clock and the SDK's
   * request timer are then the same wall clock, so the SDK's timer is the deadline — one timer
   * a call instead of two, and no abort signal to lend and take back (a third of a call's own
   * bookkeeping). A timeout is told from any other error by the SDK's own mark on it: code
   * `RequestTimeout` with this call's timeout as its data, which no reply from a server carries
   * unless it claims the very same timeout; it is classified as the clock's timeout is above.
   */
  private async callOnWallClock(request: CallRequest): Promise<CallOutcome> {
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await this.client.callTool(
        { name: request.tool, arguments: request.args, _meta: request.meta },
        undefined,
        { timeout: request.timeoutMs },
      );
    } catch (error) {
      if (
        error instanceof McpError &&
        error.code === (ErrorCode.RequestTimeout as number) &&
        (error.data as { timeout?: unknown } | undefined)?.timeout === request.timeoutMs
      ) {
        return {
          kind: 'no-reply',
          reason: 'timeout',
          message: `no reply from ${request.tool} within ${request.timeoutMs} ms`,
        };
      }
      return classifyThrown(request.tool, error);
    }
    return classifyResult(result);
  }

  /**
   * The SDK never removes the abort listener it adds to a request's signal: once the request has
   * settled, that listener is dropped here, so that aborting the spare later reaches nothing but
   * the request then in flight.
   */
  private returnSpare(abort: AbortController): void {
    if (abort.signal.aborted) {
      this.spare = undefined;
      return;
    }
    for (const listener of getEventListeners(abort.signal, 'abort'))
      abort.signal.removeEventListener('abort', listener as (event: Event) => void);
  }
}

function classifyResult(result: Record<string, unknown>): CallOutcome {
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  if (result.isError === true) {
    const parsed = toolErrorSchema.safeParse(meta[META.error]);
    if (!parsed.success) {
      // The SDK answers schema violations and unknown tools itself, without our typed class.
      const text =
        (result.content as { type: string; text?: string }[] | undefined)?.find(
          (c) => c.type === 'text',
        )?.text ?? '';
      if (/input validation error|not found/i.test(text))
        return { kind: 'error', class: 'invalid_argument', message: text };
      return {
        kind: 'error',
        class: 'malformed_reply',
        message: `error result without a typed error class in _meta: ${text}`,
      };
    }
    const { class: cls, message, retryAfterMs } = parsed.data;
    return retryAfterMs === undefined
      ? { kind: 'error', class: cls, message }
      : { kind: 'error', class: cls, message, retryAfterMs };
  }
  const trust: Trust = meta[META.trust] === 'untrusted' ? 'untrusted' : 'trusted';
  if (result.structuredContent !== undefined)
    return { kind: 'ok', result: result.structuredContent, trust };
  const content = result.content as { type: string; text?: string }[] | undefined;
  const text = content?.find((c) => c.type === 'text')?.text;
  if (text === undefined) return { kind: 'ok', result: null, trust };
  try {
    return { kind: 'ok', result: JSON.parse(text) as unknown, trust };
  } catch {
    return { kind: 'ok', result: text, trust };
  }
}

function classifyThrown(tool: string, error: unknown): CallOutcome {
  const message = error instanceof Error ? error.message : String(error);
  if (/connection closed|not connected/i.test(message)) {
    return { kind: 'no-reply', reason: 'connection-lost', message: `${tool}: ${message}` };
  }
  // The SDK throws when structured content breaks the tool's output schema, or the reply is not a valid result.
  return { kind: 'error', class: 'malformed_reply', message: `${tool}: ${message}` };
}
