import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { RecordedResult, RecordedTool, ToolInteraction } from './cassette.js';
import { InteractionLog } from './interaction-log.js';

/** The fields of a JSON-RPC message this decorator reads, whichever way it travels. */
interface Wire {
  id?: string | number;
  method?: string;
  params?: { name?: unknown; arguments?: unknown; _meta?: unknown; requestId?: unknown };
  result?: { tools?: unknown; serverInfo?: unknown } & Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export interface RecordingTransportOptions {
  /**
   * The clock an unanswered call's wait is measured on, in ms: the agent's clock, so that a
   * replay waits as long in the agent's time (`faultline record` passes the run's clock).
   * Default `Date.now`.
   */
  clock?: () => number;
}

/** A `tools/call` sent and not yet settled. */
interface PendingCall {
  readonly sentAt: number;
  answer(reply: Wire): void;
  giveUp(waitedMs: number): void;
}

/**
 * Decorates the *client's* side of an MCP transport so that every `tools/call` and its reply
 * are recorded, whatever code drives the client (our executor, an agent framework, a test).
 * Requests are paired with replies by JSON-RPC id; `tools/list` replies are kept as the tool
 * catalogue. Nothing is changed on the wire.
 *
 * A call that gets no reply is recorded too, as `unanswered` with how long the client waited
 * (on `options.clock`): when the client cancels it (`notifications/cancelled`, which the SDK
 * client sends on a timeout or an abort) or when the transport closes with it pending. A reply
 * that arrives after the cancellation is not what the client saw, and is not recorded.
 *
 * @example
 * ```ts
 * const recorder = new RecordingTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * await client.connect(recorder);
 * await client.callTool({ name: 'notes_add', arguments: { text: 'hi' } });
 * recorder.log.interactions(); // [{ step: 1, kind: 'tool', tool: 'notes_add', … }]
 * ```
 */
export class RecordingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  /** The tools the server listed, by name, in the order first seen. */
  readonly tools = new Map<string, RecordedTool>();
  private readonly calls = new Map<string, PendingCall>();
  private readonly listings = new Set<string>();
  private readonly initializing = new Set<string>();
  private readonly clock: () => number;
  private serverInfo: { name: string; version: string } | undefined;

  constructor(
    private readonly inner: Transport,
    readonly log: InteractionLog = new InteractionLog(),
    options: RecordingTransportOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /** The server's name and version from its `initialize` reply, once it has come. */
  get server(): { name: string; version: string } | undefined {
    return this.serverInfo;
  }

  /** Calls sent and neither answered nor given up yet. */
  get pending(): number {
    return this.calls.size;
  }

  /** The inner transport's session (Streamable HTTP assigns one during `initialize`). */
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Forwarded: Streamable HTTP must send the negotiated version as a header. */
  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    this.inner.onclose = () => {
      this.settle();
      this.onclose?.();
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message, extra) => {
      this.receive(message as Wire);
      this.onmessage?.(message, extra);
    };
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Wire;
    if (m.id !== undefined && m.method === 'tools/call') this.begin(String(m.id), m);
    if (m.id !== undefined && m.method === 'tools/list') this.listings.add(String(m.id));
    if (m.id !== undefined && m.method === 'initialize') this.initializing.add(String(m.id));
    const cancelled = m.method === 'notifications/cancelled' ? m.params?.requestId : undefined;
    if (typeof cancelled === 'string' || typeof cancelled === 'number')
      this.cancelled(String(cancelled));
    await this.inner.send(message, options);
  }

  async close(): Promise<void> {
    try {
      await this.inner.close();
    } finally {
      this.settle();
    }
  }

  /**
   * Records every call still pending as unanswered, waited until now: the session is over and
   * no reply can reach the client any more. Closing the transport does this.
   */
  settle(): void {
    const now = this.clock();
    for (const [id, call] of this.calls) {
      this.calls.delete(id);
      call.giveUp(Math.max(0, now - call.sentAt));
    }
  }

  private cancelled(id: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    this.calls.delete(id);
    call.giveUp(Math.max(0, this.clock() - call.sentAt));
  }

  private begin(id: string, request: Wire): void {
    const fill = this.log.reserve();
    const tool = String(request.params?.name);
    const args = isRecord(request.params?.arguments) ? request.params.arguments : {};
    const meta = isRecord(request.params?._meta) ? { meta: request.params._meta } : {};
    type Answer = Pick<ToolInteraction, 'result' | 'error' | 'unanswered'>;
    const record = (outcome: Answer): void => {
      fill({
        kind: 'tool',
        tool,
        arguments: structuredClone(args),
        ...meta,
        ...structuredClone(outcome),
      });
    };
    this.calls.set(id, {
      sentAt: this.clock(),
      answer: (reply) => {
        record(
          reply.error !== undefined
            ? { error: reply.error as Answer['error'] }
            : { result: (reply.result ?? { content: [] }) as RecordedResult },
        );
      },
      giveUp: (waitedMs) => {
        record({ unanswered: { waitedMs } });
      },
    });
  }

  private receive(message: Wire): void {
    // Only a response (no method) answers our request; the server's own requests reuse ids.
    if (message.method !== undefined || message.id === undefined) return;
    const id = String(message.id);
    const call = this.calls.get(id);
    if (call) {
      this.calls.delete(id);
      call.answer(message);
    }
    if (this.initializing.delete(id)) {
      const info = message.result?.serverInfo;
      if (isRecord(info) && typeof info.name === 'string')
        this.serverInfo = {
          name: info.name,
          version: typeof info.version === 'string' ? info.version : '',
        };
    }
    if (this.listings.delete(id) && Array.isArray(message.result?.tools)) {
      for (const tool of message.result.tools as RecordedTool[]) {
        if (!this.tools.has(tool.name)) this.tools.set(tool.name, structuredClone(tool));
      }
    }
  }
}
