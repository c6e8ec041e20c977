import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Implementation,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson } from '../runtime/canonical-json.js';
import { META, type ToolError } from '../runtime/protocol.js';
import type { Cassette, ToolInteraction } from './cassette.js';
import { DEFAULT_REDACTION, redact, type RedactOptions } from './redact.js';

/** Result `_meta` key carrying the {@link Divergence} itself, for graders and reports. */
export const DIVERGENCE_META = 'faultline/replay-divergence';

/** A tool call, as replay compares it: arguments redacted as the cassette's were. */
export interface ReplayCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** 1-based count of calls with this tool and arguments so far, this one included. */
  occurrence: number;
}

/**
 * Where the agent left the recorded path: like a replay-determinism failure, only the first
 * one is reported, since everything after it follows from it.
 */
export interface Divergence {
  /** 1-based number of the `tools/call` that diverged, counting every call the replay received. */
  step: number;
  /** The recorded call that should have come (its cassette `step` too), or null when the recording was used up. */
  expected: (ReplayCall & { step: number }) | null;
  actual: ReplayCall;
  message: string;
}

export interface ReplayOptions {
  /** Called once, at the first divergence: the place to stop the run. */
  onDivergence?: (divergence: Divergence) => void;
  /** How live arguments are redacted before matching; must be what the cassette was saved with. */
  redaction?: RedactOptions;
  /** Defaults to the recorded server's name and version. */
  serverInfo?: Implementation;
}

/** A cassette served as an MCP server, and what became of it. */
export interface Replay {
  /** Connect it to a transport: `await replay.server.connect(serverTransport)`. */
  readonly server: McpServer;
  /** The first divergence, or null while the agent has stayed on the recorded path. */
  readonly divergence: Divergence | null;
  /** Calls received so far, served or not. */
  readonly calls: number;
  /** Recorded tool calls not yet served; empty when the whole recording was used. */
  remaining(): ToolInteraction[];
}

const describe = (call: { tool: string; arguments: Record<string, unknown> }): string =>
  `${call.tool} ${canonicalJson(call.arguments)}`;

function refusal(message: string, divergence: Divergence): CallToolResult {
  const error: ToolError = { class: 'invalid_argument', message };
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    _meta: { [META.error]: error, [DIVERGENCE_META]: divergence },
  };
}

/** A JSON-RPC error as the SDK's protocol layer sends it: `code`, `message` and `data` as given. */
function rpcError(recorded: { code: number; message: string; data?: unknown }): Error {
  return Object.assign(new Error(recorded.message), {
    code: recorded.code,
    ...(recorded.data === undefined ? {} : { data: recorded.data }),
  });
}

/**
 * The reply to a call that was recorded unanswered: none. The SDK sends nothing for a request
 * whose handler was aborted (the client cancelled it, or the connection closed), so settling
 * then only frees the handler.
 */
function silence(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const stop = (): void => {
      reject(new Error('the recorded call got no reply'));
    };
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
}

/**
 * Serves a cassette as an MCP server: the recorded tools with their recorded JSON schemas,
 * and each `tools/call` answered with the recorded result — provided it is the next recorded
 * call (same tool, same canonical arguments, same occurrence). A call recorded `unanswered`
 * is never answered (the client times out or cancels, as it did live), and replay moves on to
 * the next recorded call. The first call that is not the next recorded one is the divergence: it gets an `isError` result whose `_meta['faultline/error']` says what was
 * expected and what came, and every later call is refused too, since the replay is over.
 * Nothing is ever forwarded to a live server.
 *
 * @example
 * ```ts
 * const replay = createReplayServer(await loadCassette('notes.cassette.json'));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await replay.server.connect(serverSide);
 * // … run the agent against clientSide …
 * if (replay.divergence) throw new Error(replay.divergence.message);
 * ```
 */
export function createReplayServer(cassette: Cassette, options: ReplayOptions = {}): Replay {
  const redaction = options.redaction ?? DEFAULT_REDACTION;
  const expected = cassette.interactions.filter((i): i is ToolInteraction => i.kind === 'tool');
  const served = new Map<string, number>();
  let cursor = 0;
  let calls = 0;
  let divergence: Divergence | null = null;

  // No tool is registered through `McpServer`: its `registerTool` wants zod schemas, and replay
  // must offer the recorded JSON schemas byte for byte. The low-level handlers do that.
  const server = new McpServer(
    options.serverInfo ?? cassette.server ?? { name: 'faultline-replay', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: structuredClone(cassette.tools) as Tool[],
  }));
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    calls += 1;
    const tool = request.params.name;
    const args = redact(request.params.arguments ?? {}, redaction);
    const canonicalArgs = canonicalJson(args);
    const key = `${tool}\u0000${canonicalArgs}`;
    const actual: ReplayCall = { tool, arguments: args, occurrence: (served.get(key) ?? 0) + 1 };

    if (divergence !== null) {
      const message = `replay is over (${divergence.message}); call ${calls} (${describe(actual)}) was not served`;
      return refusal(message, divergence);
    }
    const next = expected[cursor];
    // In strict order the occurrence always agrees once tool and arguments do; it is compared
    // anyway so that a cassette built in code, never parsed, cannot serve the wrong repeat.
    if (
      next !== undefined &&
      next.tool === tool &&
      next.canonicalArgs === canonicalArgs &&
      next.occurrence === actual.occurrence
    ) {
      cursor += 1;
      served.set(key, actual.occurrence);
      if (next.error !== undefined) throw rpcError(next.error);
      if (next.unanswered !== undefined) return silence(extra.signal);
      return structuredClone(next.result ?? { content: [] });
    }

    const message =
      next === undefined
        ? `replay divergence at step ${calls}: expected the end of the recording (${expected.length} calls), got ${describe(actual)}`
        : `replay divergence at step ${calls}: expected ${describe(next)}, got ${describe(actual)}`;
    divergence = {
      step: calls,
      expected:
        next === undefined
          ? null
          : {
              step: next.step,
              tool: next.tool,
              arguments: next.arguments,
              occurrence: next.occurrence,
            },
      actual,
      message,
    };
    options.onDivergence?.(divergence);
    return refusal(message, divergence);
  });

  return {
    server,
    get divergence() {
      return divergence;
    },
    get calls() {
      return calls;
    },
    remaining: () => expected.slice(cursor),
  };
}
