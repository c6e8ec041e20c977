import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { META } from '../runtime/protocol.js';
import { agentOutcome, type AgentOutcome, type AgentRun, type AgentUnderTest } from './agent.js';

/** The name a client that gave none is recorded under. */
export const UNNAMED_CLIENT = 'mcp-client';

/** The longest a forwarded call may wait on the world: the client's own timeout governs. */
const NO_TIMEOUT = 2_147_483_647;

export interface ServeSessionOptions {
  /** Told to the client at initialize (MCP `instructions`): what the run is for. */
  instructions: string;
  /**
   * The run's clock: started when the client has initialized (the run's time begins with its
   * client); `scale` is wall ms per virtual ms, for the retry-afters the client is told.
   */
  clock: { start(): void; readonly scale: number };
  /**
   * Wall milliseconds without a message from the client, and nothing in flight, after which
   * the session ends (a client gone without closing). Process lifetime, not the run's time.
   */
  idleMs: number;
}

/** One world connection the session forwards to: an incarnation's `run.client`. */
interface Binding {
  readonly client: Client;
  /** The engine restarted the agent (a crash): calls in flight on this binding never answer. */
  crashed: boolean;
  /** Stops listening to the incarnation's signal (which the engine aborts when it crashes). */
  release?: () => void;
}

/**
 * One MCP session of a client outside faultline, as the run's agent under test. The session
 * serves a front MCP server on the client's transport (stdio, Streamable HTTP) and forwards its
 * `tools/list` and `tools/call` requests, `_meta` and cancellations included, to the world over
 * `run.client` — so every call crosses the engine's fault layer and is logged and graded as any
 * agent's. The agent "returns" when the session ends: the client closes it, goes idle, the
 * process is interrupted, or the run's time is up. Its name and version are the client's
 * `clientInfo`. Black-box: it keeps no records.
 *
 * @example
 * ```ts
 * const session = new ServeSession({ instructions, clock, idleMs: 300_000 });
 * await session.connect(new StdioServerTransport());
 * const run = await runScenario(scenario, { outDir, agent: () => session, clock });
 * ```
 */
export class ServeSession implements AgentUnderTest {
  /**
   * The session's own timers (idle, transport) are the process's: a live client's time is
   * wall time, which the run's clock already follows (`ScaledWallClock`).
   */
  readonly exposes = { probes: false, planner: false, clock: true } as const;
  readonly server: McpServer;
  private binding: Binding | undefined;
  private readonly waiting: ((binding: Binding) => void)[] = [];
  private endedWith: string | undefined;
  private readonly endListeners: ((detail: string) => void)[] = [];
  private inFlight = 0;
  private idle: NodeJS.Timeout | undefined;
  private initialized = false;

  constructor(private readonly options: ServeSessionOptions) {
    this.server = new McpServer(
      { name: 'faultline-serve', version: '0.1.0' },
      { capabilities: { tools: {} }, instructions: options.instructions },
    );
    const front = this.server.server;
    front.oninitialized = () => {
      this.initialized = true;
      options.clock.start();
    };
    front.onclose = () => {
      this.end('the client closed the session');
    };
    front.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const { client } = await this.bound(extra.signal);
      return client.request(
        { method: 'tools/list', params: request.params },
        ListToolsResultSchema,
        {
          signal: extra.signal,
        },
      );
    });
    front.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.call(request.params, extra.signal),
    );
    this.armIdle();
  }

  /** The client's name from initialize (`mcp-client` if it connected without one, or never). */
  get name(): string {
    return this.server.server.getClientVersion()?.name ?? UNNAMED_CLIENT;
  }

  /** The client's version from initialize (empty if it never connected). */
  get version(): string {
    return this.server.server.getClientVersion()?.version ?? '';
  }

  /** Whether a client completed initialize: without one, there is no run to grade. */
  get connected(): boolean {
    return this.initialized;
  }

  /** Why the session ended, once it has. */
  get endReason(): string | undefined {
    return this.endedWith;
  }

  /** Serves the session on the client's transport; every message it brings resets the idle timer. */
  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      this.armIdle();
      deliver?.(message, extra);
    };
  }

  /** Ends the session (first reason wins) and closes the client's transport. */
  end(detail: string): void {
    if (this.endedWith !== undefined) return;
    this.endedWith = detail;
    clearTimeout(this.idle);
    for (const listener of this.endListeners.splice(0)) listener(detail);
    void this.server.close().catch(() => undefined);
  }

  /** Resolves with the reason when the session ends. */
  ended(): Promise<string> {
    const { endedWith } = this;
    if (endedWith !== undefined) return Promise.resolve(endedWith);
    return new Promise((resolve) => this.endListeners.push(resolve));
  }

  async start(run: AgentRun): Promise<AgentOutcome> {
    const binding: Binding = { client: run.client, crashed: false };
    this.binding = binding;
    for (const resolve of this.waiting.splice(0)) resolve(binding);
    // The run's hard stop (twice its virtual time budget) ends the session: the client is told
    // by its transport closing, as an agent in process is told by its signal.
    const stop = (): void => {
      this.end(
        `the run's time is up (${String((run.signal.reason as Error | undefined)?.message)})`,
      );
    };
    if (run.signal.aborted) stop();
    run.signal.addEventListener('abort', stop, { once: true });
    // A crashed incarnation's signal is aborted too; that ends the incarnation, not the session.
    binding.release = () => {
      run.signal.removeEventListener('abort', stop);
    };
    const detail = await this.ended();
    run.signal.removeEventListener('abort', stop);
    // The client said nothing of how it ended: it is judged by the world alone.
    return { ...agentOutcome(undefined), detail };
  }

  /** After a crash the engine starts the agent anew: the same session, a new world connection. */
  resume(run: AgentRun): Promise<AgentOutcome> {
    return this.start(run);
  }

  /**
   * The engine restarts the agent (a crash the world set off after applying a write): the
   * client lives on, but what it was waiting for on the old connection never comes, as from a
   * process that died holding the request. It sees a lost reply and its own timeout.
   */
  discard(): void {
    this.binding?.release?.();
    if (this.binding) this.binding.crashed = true;
    this.binding = undefined;
  }

  private async call(
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const binding = await this.bound(signal);
    this.inFlight++;
    clearTimeout(this.idle);
    try {
      const result = await binding.client.request(
        { method: 'tools/call', params },
        CallToolResultSchema,
        { signal, timeout: NO_TIMEOUT },
      );
      return inClientTime(result, this.options.clock.scale);
    } catch (error) {
      if (binding.crashed && !signal.aborted) await untilAborted(signal);
      throw error;
    } finally {
      this.inFlight--;
      this.armIdle();
    }
  }

  /** The current world connection; waits for the engine to give one (at start, or after a crash). */
  private bound(signal: AbortSignal): Promise<Binding> {
    if (this.binding) return Promise.resolve(this.binding);
    return new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      signal.addEventListener(
        'abort',
        () => {
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    if (this.endedWith !== undefined || this.inFlight > 0) return;
    this.idle = setTimeout(() => {
      this.end(`no message from the client for ${this.options.idleMs / 1000} s`);
    }, this.options.idleMs);
  }
}

/**
 * A reply as the client should read it: a retry-after is virtual time, and the client waits in
 * wall time, so it is told the window's wall length (`retryAfterMs × scale`, rounded up). The
 * wire log keeps the virtual figure the graders judge by.
 */
export function inClientTime<T extends object>(result: T, scale: number): T {
  const meta = (result as { _meta?: Record<string, unknown> })._meta;
  const error = meta?.[META.error] as { retryAfterMs?: unknown } | undefined;
  if (typeof error?.retryAfterMs !== 'number') return result;
  return {
    ...result,
    _meta: {
      ...meta,
      [META.error]: { ...error, retryAfterMs: Math.ceil(error.retryAfterMs * scale) },
    },
  };
}

/** Never settles unless the signal aborts: a reply that will not come. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener(
      'abort',
      () => {
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
