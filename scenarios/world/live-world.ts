import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ListToolsResultSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../runtime/clock.js';
import { FaultlineError } from '../../runtime/errors.js';
import { APPROVAL_TOOLS, META } from '../../runtime/protocol.js';
import { sharedSchemaValidators } from '../../runtime/schema-validators.js';
import { onRealTime } from '../virtual-timers.js';
import {
  ExternalWorld,
  type ExternalAnswer,
  type ExternalCall,
  type ListedTool,
} from './external-world.js';

/**
 * The live MCP server a live world talks to: a command faultline spawns (MCP over its stdio)
 * or a Streamable HTTP URL. A spawned server gets the whole environment of faultline's process
 * (plus `env`), unlike the SDK's default of a handful of variables: a server reads its own
 * credentials from there. `headers` go with every HTTP request (an `Authorization` header, say)
 * and are never written anywhere by faultline.
 */
export type LiveTarget =
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
      /**
       * What becomes of the server's stderr: shown line by line after {@link LIVE_PREFIX} (the
       * default), passed through as is (`inherit`), kept apart (`pipe`) or dropped.
       */
      readonly stderr?: 'inherit' | 'pipe' | 'ignore';
    }
  | { readonly url: string; readonly headers?: Readonly<Record<string, string>> };

/**
 * `forward`: every call goes to the live server (what `faultline record` drives). `shadow`:
 * reads go to the live server, every write is held — never sent — and kept as a proposal.
 */
export type LiveMode = 'forward' | 'shadow';

/** The class and rule a held write is refused with (see {@link heldResult}). */
export const HELD_CLASS = 'policy_denied';
export const HELD_RULE = 'autonomy.shadow';
/** Result `_meta` key of a held write: `{ proposal: n }`, n counting from 1 in the run. */
export const HELD_META = 'faultline/held';

/**
 * A write the live world held in shadow mode: what it would have sent, when, and the reads the
 * agent made before it (call ids of reads the live server answered without error), which are
 * its evidence.
 */
export interface ShadowProposal {
  /** 1-based, in the order the writes were held. */
  readonly n: number;
  /** The call's id on the wire (the trajectory's `callId`). */
  readonly callId: string;
  readonly tool: string;
  /** The arguments as the agent sent them, contract arguments (`idempotency_key`) included. */
  readonly args: Readonly<Record<string, unknown>>;
  /** Virtual time it was held at. */
  readonly at: number;
  /** Its place in the run's one order of events, when the clock keeps one. */
  readonly order?: number;
  /** Call ids of the answered reads before it, oldest first. */
  readonly evidence: readonly string[];
}

/** What a live world keeps of its own: counters only (the live server holds the real state). */
export interface LiveState {
  /** Calls sent to the live server. */
  forwarded: number;
  /** Writes held in shadow mode. */
  held: number;
}

export interface LiveWorldOptions {
  readonly target: LiveTarget;
  /** The run's clock (the engine's): a held write is stamped with it. */
  readonly clock: Clock & { sequence?: () => number };
  /** Default `forward`. */
  readonly mode?: LiveMode;
  /** Recorded as the world's seed; a live server has none of faultline's. Default 0. */
  readonly seed?: number;
  /**
   * Decorates the transport to the live server before the client connects over it: where
   * `faultline record` puts its `RecordingTransport`.
   */
  readonly wrapTransport?: (transport: Transport) => Transport;
  /** Who faultline says it is at initialize. Default `faultline-live`. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

/** The longest a forwarded call waits on the live server: the agent's cancellation governs. */
const NO_TIMEOUT = 2_147_483_647;

/** A live server faultline could not reach, or that would not list its tools. */
export class LiveWorldError extends FaultlineError<{ target: string }> {
  override readonly name = 'LiveWorldError';
  constructor(target: string, message: string, options?: { cause?: unknown }) {
    super('live-unreachable', `live server ${target}: ${message}`, { target }, false, options);
  }
}

/**
 * A world that is a live MCP server: its tools are the server's `tools/list`, verbatim, and each
 * call the engine admits (credential, fault hooks) is sent to the server with the agent's
 * arguments and `_meta` (faultline's credential taken out) and the agent's cancellation, and the
 * server's result comes back verbatim. In `shadow` mode only reads (`readOnlyHint`) are sent;
 * a write is held and answered with {@link heldResult}, kept as a {@link ShadowProposal}, and is no
 * effect. The world's state is two counters; the live server's own state is the server's.
 *
 * Open one with {@link openLiveWorld}; the engine closes it when the run ends (`close`).
 *
 * @example
 * ```ts
 * const world = await openLiveWorld({ target: { url: 'http://127.0.0.1:8080/mcp' }, clock, mode: 'shadow' });
 * const run = await runScenario(scenario, { outDir, clock, world: () => world });
 * ```
 */
export class LiveWorld extends ExternalWorld<LiveState> {
  readonly name = 'live';
  readonly mode: LiveMode;
  /** How the target is named in messages (the command, or the URL's origin and path). */
  readonly label: string;
  private readonly held: ShadowProposal[] = [];
  /** Reads the live server answered without error, in order: a later proposal's evidence. */
  private readonly reads: string[] = [];
  private closing: Promise<void> | undefined;
  /** The run's order of events, when the clock keeps one (the engine's always does). */
  private readonly sequence: (() => number) | undefined;

  private constructor(
    options: LiveWorldOptions,
    private readonly client: Client,
    private readonly listed: readonly ListedTool[],
    label: string,
  ) {
    super({ seed: options.seed ?? 0, clock: options.clock }, { forwarded: 0, held: 0 });
    this.mode = options.mode ?? 'forward';
    this.label = label;
    this.sequence = options.clock.sequence?.bind(options.clock);
  }

  /** @internal Built by {@link openLiveWorld}, which connects first. */
  static create(
    options: LiveWorldOptions,
    client: Client,
    listed: readonly ListedTool[],
    label: string,
  ): LiveWorld {
    return new LiveWorld(options, client, listed, label);
  }

  /**
   * The server's tools as it listed them. Tools named like faultline's approval tools are left
   * out: faultline's approvals desk serves those names beside them, backed by the run's operator.
   */
  listedTools(): readonly ListedTool[] {
    return this.listed.filter((t) => !(APPROVAL_TOOLS as readonly string[]).includes(t.name));
  }

  /** The writes held so far (shadow mode), in order. */
  proposals(): readonly ShadowProposal[] {
    return this.held.map((p) => ({ ...p, args: structuredClone(p.args) }));
  }

  protected async forward(call: ExternalCall): Promise<ExternalAnswer> {
    if (call.kind === 'write' && this.mode === 'shadow') return this.hold(call);
    this.state.forwarded++;
    // On real time: the live server takes wall time, and the transport's own timers (and any
    // decorator's) must not wait on the virtual clock this very call holds still.
    const result: CallToolResult = await onRealTime(() =>
      this.client.request(
        {
          method: 'tools/call',
          params: {
            name: call.tool,
            arguments: { ...call.sent },
            ...(Object.keys(call.meta).length > 0 ? { _meta: { ...call.meta } } : {}),
          },
        },
        CallToolResultSchema,
        { signal: call.signal, timeout: NO_TIMEOUT },
      ),
    );
    if (call.kind === 'read' && result.isError !== true) this.reads.push(call.requestId);
    return { result };
  }

  /** Holds a write: never sent, kept as a proposal, answered as shadow mode says. */
  private hold(call: ExternalCall): ExternalAnswer {
    this.state.held++;
    const n = this.held.length + 1;
    const order = this.sequence?.();
    this.held.push({
      n,
      callId: call.requestId,
      tool: call.tool,
      args: structuredClone(call.sent),
      at: this.clock.now(),
      ...(order === undefined ? {} : { order }),
      evidence: [...this.reads],
    });
    return { result: heldResult(n), applied: false };
  }

  /** Closes the connection (and stops a spawned server). Safe to call more than once. */
  override close(): Promise<void> {
    this.closing ??= this.client.close().catch(() => undefined);
    return this.closing;
  }
}

/**
 * What an agent is told of a write held in shadow mode. A refusal (`isError`), not a success:
 * nothing was executed, and an agent that took a success for done would claim an effect that
 * never happened (and read back a world without it). Its class is `policy_denied`, the class the
 * reference runtime's own gate gives a write its contract forbids — not retryable, so an agent
 * that classifies errors does not send it again — and `_meta` says which proposal it became.
 * A success would also fail a stock client's check of the tool's output schema, which a held
 * write has nothing to fill.
 */
export function heldResult(n: number): CallToolResult {
  const message = `held: shadow mode executes no writes; recorded as proposal #${n}`;
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: {
      [META.error]: { class: HELD_CLASS, message },
      [HELD_META]: { proposal: n, rule: HELD_RULE },
    },
  };
}

/**
 * Connects to a live MCP server and lists its tools (every page), then hands back the world.
 * Throws {@link LiveWorldError} when the server cannot be reached or listed (the command does
 * not start, the URL refuses, the headers are refused), with the client closed.
 *
 * @example
 * ```ts
 * const world = await openLiveWorld({
 *   target: { command: 'node', args: ['server.js'] },
 *   clock: new VirtualClock(),
 *   mode: 'shadow',
 * });
 * try {
 *   console.log(world.listedTools().map((t) => t.name));
 * } finally {
 *   await world.close();
 * }
 * ```
 */
export async function openLiveWorld(options: LiveWorldOptions): Promise<LiveWorld> {
  const { transport, label } = await liveTransport(options.target);
  const client = new Client(options.clientInfo ?? { name: 'faultline-live', version: '0.1.0' }, {
    jsonSchemaValidator: sharedSchemaValidators,
  });
  try {
    await client.connect(options.wrapTransport ? options.wrapTransport(transport) : transport);
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ListToolsResultSchema,
      );
      tools.push(...(page.tools as ListedTool[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return LiveWorld.create(options, client, tools, label);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new LiveWorldError(
      label,
      `could not connect and list its tools: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * How a target is reached, and how it is named in messages (never with its headers). The
 * client transports (HTTP with its OAuth and event-stream modules; stdio with cross-spawn) are
 * imported here, by a live run or a recording only, not at every start of the command.
 */
export async function liveTransport(
  target: LiveTarget,
): Promise<{ transport: Transport; label: string }> {
  if ('url' in target) {
    let url: URL;
    try {
      url = new URL(target.url);
    } catch (error) {
      throw new LiveWorldError(target.url, 'not a URL', { cause: error });
    }
    const { StreamableHTTPClientTransport } =
      await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return {
      transport: new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...target.headers } },
      }),
      label: `${url.origin}${url.pathname}`,
    };
  }
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({
    command: target.command,
    args: [...(target.args ?? [])],
    env: { ...env, ...target.env },
    stderr: target.stderr ?? 'pipe',
    ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
  });
  // By default the server's own messages are shown, each line marked as the live server's, so
  // they are not mistaken for faultline's (a faultline serve standing in prints a whole report).
  const stream = target.stderr === undefined ? (transport.stderr as Readable | null) : null;
  if (stream)
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      process.stderr.write(`${LIVE_PREFIX}${line}\n`);
    });
  return { transport, label: `"${target.command}"` };
}

/** Marks each line a live server writes to its stderr, when faultline shows it. */
export const LIVE_PREFIX = 'live │ ';
