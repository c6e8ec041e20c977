import type { OperatorCommand } from '../../runtime/operator.js';
import type { ChildReplies, ChildRequest, Envelope, FromChild, ToChild } from './protocol.js';

type Body<T extends ToChild['type']> = Extract<ToChild, { type: T }>;

/**
 * The child's end of the IPC channel (see `protocol.ts`): counts every message in and out,
 * keeps the time and the operator commands the parent's envelopes carry, matches replies to
 * requests, and reports `idle` whenever its event loop drains.
 */
export class ParentLink {
  /** The virtual time, as of the last envelope. */
  now = 0;
  /** Operator commands shipped by the parent and not yet handed out. */
  readonly commands: OperatorCommand[] = [];
  private received = 0;
  private sent = 0;
  private activity = 0;
  private checking = false;
  /** Work of the child's own under way (loading the agent's module): it is not idle. */
  private working = 0;
  private reported = '';
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private readonly handlers = new Map<string, (body: ToChild) => void>();

  constructor(private readonly port: NodeJS.Process = process) {
    port.on('message', (message: Envelope) => {
      this.now = message.now;
      this.commands.push(...message.commands);
      this.received++;
      this.deliver(message.body);
      this.touch();
    });
  }

  /** Handles one kind of parent message (`reply` is handled here). */
  on<T extends Exclude<ToChild['type'], 'reply'>>(type: T, handle: (body: Body<T>) => void): void {
    this.handlers.set(type, handle as (body: ToChild) => void);
  }

  /** Sends one counted message; `sent` is called once it is handed to the channel. */
  send(message: FromChild, sent?: () => void): void {
    this.sent++;
    this.port.send?.(message, undefined, undefined, () => sent?.());
    this.touch();
  }

  request<K extends ChildRequest['kind']>(
    request: Extract<ChildRequest, { kind: K }>,
  ): Promise<ChildReplies[K]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.send({ type: 'request', id, request });
    });
  }

  /**
   * Runs work that waits on nothing of the parent's (importing the agent's module reads files):
   * until it settles the child is not idle, so no virtual time passes while it loads.
   */
  async busy<T>(work: Promise<T>): Promise<T> {
    this.working++;
    try {
      return await work;
    } finally {
      this.working--;
      this.touch();
    }
  }

  /** Counts an MCP line read from or written to the parent. */
  countMcp(direction: 'in' | 'out'): void {
    if (direction === 'in') this.received++;
    else this.sent++;
    this.touch();
  }

  private deliver(body: ToChild): void {
    if (body.type === 'reply') {
      const waiting = this.waiting.get(body.id);
      this.waiting.delete(body.id);
      if (body.error === null) waiting?.resolve(body.value);
      else waiting?.reject(new Error(body.error));
      return;
    }
    this.handlers.get(body.type)?.(body);
  }

  /**
   * Something happened: once two `setImmediate` turns pass with nothing else happening, every
   * promise chain it started has run and the child is waiting on the parent.
   */
  private touch(): void {
    this.activity++;
    if (this.checking) return;
    this.checking = true;
    this.check();
  }

  private check(): void {
    const seen = this.activity;
    setImmediate(() => {
      setImmediate(() => {
        if (this.activity !== seen) {
          this.check();
          return;
        }
        this.checking = false;
        if (this.working > 0) return;
        const counts = `${this.received}:${this.sent}`;
        if (counts === this.reported) return;
        this.reported = counts;
        this.port.send?.({ type: 'idle', received: this.received, sent: this.sent });
      });
    });
  }
}
