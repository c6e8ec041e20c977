import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { META } from '../runtime/protocol.js';

/** A tool call as it crossed the wire, in the order the world received it. */
export interface WireCall {
  /** JSON-RPC request id, as a string. */
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  idempotencyKey: string | null;
  /** 1-based count of calls to this tool so far, this one included. */
  toolCall: number;
  /** 1-based count of all tool calls so far. */
  step: number;
  fault: string | null;
  /** What became of the reply: delivered, withheld (lost or never produced), or replaced by the fault. */
  reply: 'pending' | 'delivered' | 'dropped' | 'injected';
  isError: boolean | null;
}

/** What the fault layer does to one call. */
export type WireAction =
  /** The world never sees the request and no reply comes (a timeout before anything happened). */
  | { kind: 'drop-request'; fault: string }
  /** The world handles the request; its reply is lost (a lost acknowledgement). */
  | { kind: 'drop-reply'; fault: string }
  /** The world never sees the request; this result is returned instead (transient, rate limit…). */
  | { kind: 'respond'; fault: string; result: Record<string, unknown> };

export type WireDecider = (
  call: Omit<WireCall, 'fault' | 'reply' | 'isError'>,
) => WireAction | undefined;

interface Incoming {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: { name?: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: unknown;
}

/**
 * What the wire saw across every connection to one world: call counters that survive a
 * reconnect (a fault on "the 2nd issue_refund" counts calls made before a crash too), and
 * every call in order.
 */
export class WireLog {
  readonly calls: WireCall[] = [];
  private readonly perTool = new Map<string, number>();

  /** Counts a new call and returns its per-tool and overall ordinals. */
  count(tool: string): { toolCall: number; step: number } {
    const toolCall = (this.perTool.get(tool) ?? 0) + 1;
    this.perTool.set(tool, toolCall);
    return { toolCall, step: this.calls.length + 1 };
  }
}

/**
 * Decorates the world's side of an MCP transport, so wire faults work for any client: each
 * `tools/call` request is shown to the decider, which may drop it, drop its reply, or answer
 * in the world's place. Every call is recorded as it crossed the wire — which is what
 * graders read, since a dropped reply is visible nowhere else.
 */
export class WireFaultTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  sessionId?: string;

  /** The calls made over this connection. */
  readonly calls: WireCall[] = [];
  private readonly byId = new Map<string, WireCall>();

  constructor(
    private readonly inner: Transport,
    private readonly decide: WireDecider = () => undefined,
    readonly log: WireLog = new WireLog(),
  ) {}

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message, extra) => {
      this.receive(message as Incoming, extra);
    };
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Incoming;
    // Only a response (no method) answers a call; the server's own requests reuse ids.
    const isResponse = m.method === undefined && (m.result !== undefined || m.error !== undefined);
    const call = !isResponse || m.id === undefined ? undefined : this.byId.get(String(m.id));
    if (call && call.reply === 'pending') {
      call.isError = m.error !== undefined || m.result?.isError === true;
      if (call.fault !== null && this.dropReplies.has(call.callId)) {
        call.reply = 'dropped';
        return;
      }
      call.reply = 'delivered';
    }
    await this.inner.send(message, options);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  private readonly dropReplies = new Set<string>();

  private receive(message: Incoming, extra?: MessageExtraInfo): void {
    if (message.method !== 'tools/call' || message.id === undefined) {
      this.onmessage?.(message as JSONRPCMessage, extra);
      return;
    }
    const tool = message.params?.name ?? '';
    const key = message.params?._meta?.[META.idempotencyKey];
    const base = {
      callId: String(message.id),
      tool,
      args: message.params?.arguments ?? {},
      idempotencyKey: typeof key === 'string' ? key : null,
      ...this.log.count(tool),
    };
    const action = this.decide(base);
    const call: WireCall = {
      ...base,
      fault: action?.fault ?? null,
      reply: 'pending',
      isError: null,
    };
    this.calls.push(call);
    this.log.calls.push(call);
    this.byId.set(call.callId, call);
    switch (action?.kind) {
      case undefined:
        this.onmessage?.(message as JSONRPCMessage, extra);
        return;
      case 'drop-request':
        call.reply = 'dropped';
        return;
      case 'drop-reply':
        this.dropReplies.add(call.callId);
        this.onmessage?.(message as JSONRPCMessage, extra);
        return;
      case 'respond':
        call.reply = 'injected';
        call.isError = action.result.isError === true;
        void this.inner.send({ jsonrpc: '2.0', id: message.id, result: action.result });
        return;
    }
  }
}
