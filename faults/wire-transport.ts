import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import {
  APPROVAL_TOKEN_META,
  APPROVAL_TOOLS,
  CONTRACT_ARGUMENT,
  META,
} from '../runtime/protocol.js';

/** A tool call as it crossed the wire, in the order the world received it. */
export interface WireCall {
  /**
   * The call's id on the world's side: unique across every connection to the world (the
   * client's JSON-RPC id prefixed with the connection), so a ledger entry's request id names
   * exactly one call.
   */
  callId: string;
  /** Which connection made the call. */
  connection: number;
  /**
   * Which agent incarnation made the call, when it differs from the connection (an incarnation
   * may open several connections); absent, the connection is the incarnation.
   */
  incarnation?: number;
  tool: string;
  /** The world's own arguments: without the contract's `idempotency_key` and `approval_token`. */
  args: Record<string, unknown>;
  meta: Record<string, unknown>;
  /** The key the call sent, as the `idempotency_key` argument or in `_meta` (the argument first). */
  idempotencyKey: string | null;
  /** The approval token the call presented, if any (approvals are single-use grants, not secrets). */
  approvalToken: string | null;
  /** 1-based count of calls to this tool so far, this one included. */
  toolCall: number;
  /** 1-based count of all tool calls so far. */
  step: number;
  /** Virtual time the world received the call. */
  at: number;
  /** Its place in the run's one order of events (the clock's sequence), ties within `at` broken. */
  order: number;
  fault: string | null;
  /** Set on the network's second delivery of a call (a duplicate-delivery fault): that call's id. */
  echoOf?: string;
  /**
   * What became of the reply: delivered (possibly rewritten by a fault), withheld (lost or
   * never produced), produced by the fault instead of the world, or delivered after the agent
   * had stopped waiting.
   */
  reply: 'pending' | 'delivered' | 'dropped' | 'injected' | 'late';
  isError: boolean | null;
  /** The typed error class of an error reply, when it carried one. */
  errorClass: string | null;
  /** A `rate_limited` reply's retry-after, in ms, when it gave one. */
  retryAfterMs?: number;
}

type CallResult = Record<string, unknown>;

/** What the fault layer does to one call. */
export type WireAction =
  /** The world never sees the request and no reply comes (a timeout before anything happened). */
  | { kind: 'drop-request'; fault: string }
  /** The world handles the request; its reply is lost (a lost acknowledgement). */
  | { kind: 'drop-reply'; fault: string }
  /** The world never sees the request; this result is returned instead (transient, rate limit…). */
  | { kind: 'respond'; fault: string; result: CallResult }
  /** The world handles the request; its reply is changed on the way back. */
  | { kind: 'rewrite-reply'; fault: string; rewrite: (result: CallResult) => CallResult }
  /** The request is delivered to the world twice; the second reply goes nowhere. */
  | { kind: 'deliver-twice'; fault: string }
  /** The call goes through untouched; a fault it set off elsewhere (in the world) is marked on it. */
  | { kind: 'pass'; fault: string }
  /**
   * The request is held until the agent gives up on it (its cancellation arrives), then reaches
   * the world when `schedule` calls `deliver`: its effect lands, its reply comes too late.
   */
  | { kind: 'delay-request'; fault: string; schedule: (deliver: () => void) => void };

export type WireDecider = (call: Readonly<WireCall>) => WireAction | undefined;

interface Incoming {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: { name?: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
  result?: CallResult;
  error?: unknown;
}

/**
 * What the wire saw across every connection to one world: call counters that survive a
 * reconnect (a fault on "the 2nd issue_refund" counts calls made before a crash too), and
 * every call in order.
 */
export class WireLog {
  readonly calls: WireCall[] = [];
  /**
   * The incarnation a new connection belongs to, when the engine says so (an agent may open
   * more than one connection per incarnation); unset, each connection is an incarnation.
   */
  incarnation: number | undefined;
  private readonly perTool = new Map<string, number>();
  private connections = 0;

  /**
   * @param now the virtual clock's time, stamped on each call
   * @param hold marks the world busy while it handles a delivered request (the clock's time
   *   rule: virtual time never jumps past a reply that is on its way)
   * @param order the next number of the run's one order of events (the clock's sequence)
   */
  constructor(
    readonly now: () => number = () => 0,
    readonly hold: () => () => void = () => () => undefined,
    readonly order: () => number = counter(),
  ) {}

  /** Counts a new call and returns its per-tool and overall ordinals. */
  count(tool: string): { toolCall: number; step: number } {
    const toolCall = (this.perTool.get(tool) ?? 0) + 1;
    this.perTool.set(tool, toolCall);
    return { toolCall, step: this.calls.length + 1 };
  }

  /** A number for a new connection. */
  connect(): number {
    return this.connections++;
  }
}

interface Pending {
  call: WireCall;
  clientId: string | number;
  /** Replies to drop or rewrite, by the world-side id. */
  drop: boolean;
  rewrite?: (result: CallResult) => CallResult;
  /** Set once the agent can no longer receive the reply. */
  late: boolean;
  /** Releases the clock once the world has answered. */
  release?: () => void;
  /** A held request: sent on to the world once the agent gives up on it. */
  held?: (() => void) | undefined;
}

/**
 * Decorates the world's side of an MCP transport, so wire faults work for any client: each
 * `tools/call` request is shown to the decider, which may drop it, drop or rewrite its reply,
 * answer in the world's place, deliver it twice or late. Every call is recorded as it crossed
 * the wire — which is what graders read, since a dropped reply is visible nowhere else.
 */
export class WireFaultTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  sessionId?: string;

  /** The calls made over this connection. */
  readonly calls: WireCall[] = [];
  readonly connection: number;
  readonly incarnation: number;
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(
    private readonly inner: Transport,
    private readonly decide: WireDecider = () => undefined,
    readonly log: WireLog = new WireLog(),
  ) {
    this.connection = log.connect();
    this.incarnation = log.incarnation ?? this.connection;
  }

  async start(): Promise<void> {
    this.inner.onclose = () => {
      this.closed = true;
      // No reply can cross a closed connection: the world is no longer busy for its calls. (The
      // SDK forgets the transport once it sees it close, so close() may never be called.)
      for (const entry of this.pending.values()) entry.release?.();
      this.onclose?.();
    };
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
    const entry = isResponse && m.id !== undefined ? this.pending.get(String(m.id)) : undefined;
    if (!entry) {
      await this.inner.send(message, options);
      return;
    }
    this.pending.delete(String(m.id));
    entry.release?.();
    const { call } = entry;
    let result = m.result;
    if (result && entry.rewrite) result = entry.rewrite(result);
    call.isError = m.error !== undefined || result?.isError === true;
    call.errorClass = errorClassOf(result);
    noteRetryAfter(call, result);
    if (entry.drop) {
      if (call.reply === 'pending') call.reply = 'dropped';
      return;
    }
    if (entry.late || this.closed) {
      call.reply = 'late';
      return;
    }
    call.reply = 'delivered';
    const reply = { ...m, id: entry.clientId, ...(result ? { result } : {}) } as JSONRPCMessage;
    await this.inner.send(reply, options);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.pending.values()) entry.release?.();
    await this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Withholds the reply of a call still being handled (the engine's `after-apply` crash). */
  dropReply(callId: string): void {
    const entry = this.pending.get(callId);
    if (entry) entry.drop = true;
  }

  private receive(message: Incoming, extra?: MessageExtraInfo): void {
    if (message.method === 'notifications/cancelled') {
      // The agent gave up on a call: a reply that still comes is late.
      const params = message.params as { requestId?: string | number } | undefined;
      const worldId = `${this.connection}/${String(params?.requestId)}`;
      const entry = this.pending.get(worldId);
      if (entry) {
        entry.late = true;
        const held = entry.held;
        entry.held = undefined;
        held?.();
      }
    }
    // Approval tools are the operator's, not the world's: no fault, no record, no clock hold
    // (waiting for an approval must let virtual time run).
    if (
      message.method !== 'tools/call' ||
      message.id === undefined ||
      isApprovalTool(message.params?.name)
    ) {
      this.onmessage?.(message as JSONRPCMessage, extra);
      return;
    }
    const tool = message.params?.name ?? '';
    const meta = message.params?._meta ?? {};
    const { args, idempotencyKey, approvalToken } = contractArguments(
      message.params?.arguments ?? {},
      meta,
    );
    const worldId = `${this.connection}/${String(message.id)}`;
    const call: WireCall = {
      callId: worldId,
      connection: this.connection,
      incarnation: this.incarnation,
      tool,
      args,
      meta,
      idempotencyKey,
      approvalToken,
      ...this.log.count(tool),
      at: this.log.now(),
      // Taken before the decider runs: a fault this call sets off comes after the call.
      order: this.log.order(),
      fault: null,
      reply: 'pending',
      isError: null,
      errorClass: null,
    };
    const action = this.decide(call);
    call.fault = action?.fault ?? null;
    this.calls.push(call);
    this.log.calls.push(call);
    const forwarded = { ...message, id: worldId } as JSONRPCMessage;
    const entry: Pending = { call, clientId: message.id, drop: false, late: false };
    const deliver = (pending: Pending, msg: JSONRPCMessage): void => {
      pending.release = this.log.hold();
      this.onmessage?.(msg, extra);
    };
    switch (action?.kind) {
      case undefined:
      case 'pass':
        this.pending.set(worldId, entry);
        deliver(entry, forwarded);
        return;
      case 'drop-request':
        call.reply = 'dropped';
        return;
      case 'drop-reply':
        entry.drop = true;
        this.pending.set(worldId, entry);
        deliver(entry, forwarded);
        return;
      case 'rewrite-reply':
        entry.rewrite = action.rewrite;
        this.pending.set(worldId, entry);
        deliver(entry, forwarded);
        return;
      case 'respond':
        call.reply = 'injected';
        call.isError = action.result.isError === true;
        call.errorClass = errorClassOf(action.result);
        noteRetryAfter(call, action.result);
        void this.inner.send({ jsonrpc: '2.0', id: message.id, result: action.result });
        return;
      case 'deliver-twice': {
        this.pending.set(worldId, entry);
        deliver(entry, forwarded);
        const echoId = `${worldId}#2`;
        // The echo is the network's doing, not a call the agent made: it takes no count of its own.
        const echo: WireCall = {
          ...call,
          callId: echoId,
          echoOf: worldId,
          order: this.log.order(),
          reply: 'pending',
        };
        this.log.calls.push(echo);
        this.calls.push(echo);
        const echoEntry: Pending = { call: echo, clientId: message.id, drop: true, late: false };
        this.pending.set(echoId, echoEntry);
        deliver(echoEntry, { ...message, id: echoId } as JSONRPCMessage);
        return;
      }
      case 'delay-request':
        this.pending.set(worldId, entry);
        entry.held = () => {
          action.schedule(() => {
            if (!this.closed) deliver(entry, forwarded);
          });
        };
        return;
    }
  }
}

function isApprovalTool(name: string | undefined): boolean {
  return (APPROVAL_TOOLS as readonly (string | undefined)[]).includes(name);
}

/**
 * The call's key and token, sent as ordinary arguments or in `_meta` (the argument first, as
 * the world takes it), and the world's own arguments without them — what every grader reads.
 */
function contractArguments(
  sent: Record<string, unknown>,
  meta: Record<string, unknown>,
): { args: Record<string, unknown>; idempotencyKey: string | null; approvalToken: string | null } {
  const {
    [CONTRACT_ARGUMENT.idempotencyKey]: keyArg,
    [CONTRACT_ARGUMENT.approvalToken]: tokenArg,
    ...args
  } = sent;
  return {
    args: keyArg === undefined && tokenArg === undefined ? sent : args,
    idempotencyKey: text(keyArg) ?? text(meta[META.idempotencyKey]),
    approvalToken: text(tokenArg) ?? text(meta[APPROVAL_TOKEN_META]),
  };
}

/** A string as sent, or null for anything else. */
function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A counter from 1: the order of a log no clock orders. */
function counter(): () => number {
  let n = 0;
  return () => ++n;
}

/** Keeps the retry-after an error reply asked for (a `rate_limited` one, typically). */
function noteRetryAfter(call: WireCall, result: CallResult | undefined): void {
  if (result?.isError !== true) return;
  const error = (result._meta as Record<string, unknown> | undefined)?.[META.error] as
    { retryAfterMs?: unknown } | undefined;
  const ms = error?.retryAfterMs;
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) call.retryAfterMs = ms;
}

function errorClassOf(result: CallResult | undefined): string | null {
  if (result?.isError !== true) return null;
  const error = (result._meta as Record<string, unknown> | undefined)?.[META.error] as
    { class?: unknown } | undefined;
  return typeof error?.class === 'string' ? error.class : 'untyped';
}
