import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { ChildProcess } from 'node:child_process';
import type { CrashProbe, ProbeInfo } from '../../runtime/crash-probe.js';
import type { RunCredential } from '../../runtime/credential.js';
import type { Operator, OperatorCommand } from '../../runtime/operator.js';
import type { RunClock } from '../run-clock.js';
import type { ChildReplies, ChildRequest, Envelope, FromChild, ToChild } from './protocol.js';

/** What a session uses of the trial, which outlives it. */
export interface SessionTrial {
  clock: RunClock;
  operator: Operator;
  credential: RunCredential;
  /** The engine's deadline: its abort is forwarded to the child. */
  signal: AbortSignal;
}

/** What a session asks of its host: the trial, the clock hold, the operator's queue. */
export interface SessionHost {
  readonly trial: SessionTrial;
  /** Takes the clock (synchronously: before the clock can look again). */
  holdClock(): void;
  /** Lets the clock go, a turn later, if `still` still holds then. */
  releaseWhenStill(still: () => boolean): void;
  /** Operator commands to ship in the next envelope; `all` adds those not yet taken. */
  commandsFor(all: boolean): OperatorCommand[];
  /** The child took the oldest command shipped. */
  commandTaken(): void;
}

export interface Exit {
  code: number | null;
  signal: string | null;
}

type AgentResult = Extract<FromChild, { type: 'outcome' }>['result'];

/**
 * One child process, seen from the engine: the IPC end of the protocol in `protocol.ts` —
 * envelopes out, requests answered, the child's timers on the engine's clock — the message
 * counts on both channels, and the clock hold they decide.
 */
export class ChildSession {
  alive = true;
  readonly outcome: Promise<AgentResult>;
  /** Resolves once the process exited and its IPC channel closed (every message read). */
  readonly ended: Promise<Exit>;
  private sent = 0;
  private received = 0;
  private idle: { received: number; sent: number } | undefined;
  private mcpSeq = 0;
  private readonly timers = new Map<number, () => void>();
  private frozen = false;
  private settle!: (result: AgentResult) => void;
  private readonly onAbort: () => void;

  constructor(
    private readonly child: ChildProcess,
    private readonly host: SessionHost,
    private readonly crashAt: (probe: CrashProbe, info: ProbeInfo) => boolean,
  ) {
    this.outcome = new Promise((resolve) => (this.settle = resolve));
    const exited = new Promise<Exit>((resolve) => {
      child.once('exit', (code, signal) => {
        this.alive = false;
        resolve({ code, signal });
      });
    });
    const disconnected = new Promise<void>((resolve) => {
      if (!child.connected) resolve();
      else child.once('disconnect', resolve);
    });
    this.ended = Promise.all([exited, disconnected]).then(([exit]) => {
      this.dispose();
      return exit;
    });
    // A dead child's pipes fail writes; the exit is what counts, handled above.
    child.stdin?.on('error', () => undefined);
    child.on('error', () => undefined);
    child.on('message', (message: FromChild) => {
      this.receive(message);
    });
    this.onAbort = () => {
      this.send({ type: 'abort', reason: reasonOf(host.trial.signal.reason) });
    };
    host.trial.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Sends one envelope: the body, the time, and operator commands issued since the last. */
  send(body: ToChild, allCommands = false): void {
    if (!this.alive || !this.child.connected) return;
    const envelope: Envelope = {
      now: this.host.trial.clock.now(),
      commands: this.host.commandsFor(allCommands),
      body,
    };
    this.sent++;
    this.child.send(envelope);
    this.check();
  }

  /** Decorates the raw stdio transport: counts MCP lines, and marks each one sent over IPC. */
  countMcp(inner: Transport): Transport {
    const transport: Transport = {
      start: async () => {
        inner.onclose = () => transport.onclose?.();
        inner.onerror = (error) => transport.onerror?.(error);
        inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
          this.received++;
          transport.onmessage?.(message, extra);
          this.check();
        };
        await inner.start();
      },
      send: async (message: JSONRPCMessage, options?: TransportSendOptions) => {
        if (!this.alive) return;
        this.send({ type: 'mcp', seq: ++this.mcpSeq });
        this.sent++;
        this.check();
        await inner.send(message, options);
      },
      close: () => inner.close(),
      setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
    };
    return transport;
  }

  /** From now on this child keeps the clock held: it is about to die. */
  freeze(): void {
    this.frozen = true;
    this.host.holdClock();
  }

  kill(): void {
    if (this.alive) this.child.kill('SIGKILL');
  }

  /** Waits for the exit; a child that does not go in time is killed. */
  async end(graceMs: number): Promise<Exit> {
    const timer = setTimeout(() => {
      this.kill();
    }, graceMs);
    try {
      return await this.ended;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A dead child has no timers and hears no more aborts. */
  dispose(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    this.host.trial.signal.removeEventListener('abort', this.onAbort);
  }

  private receive(message: FromChild): void {
    if (message.type === 'idle') {
      this.idle = { received: message.received, sent: message.sent };
      this.check();
      return;
    }
    this.received++;
    switch (message.type) {
      case 'timer': {
        const { timer } = message;
        const cancel = this.host.trial.clock.setTimer(message.ms, () => {
          this.timers.delete(timer);
          this.send({ type: 'fire', timer });
        });
        this.timers.set(timer, cancel);
        break;
      }
      case 'cancel-timer':
        this.timers.get(message.timer)?.();
        this.timers.delete(message.timer);
        break;
      case 'taken':
        this.host.commandTaken();
        break;
      case 'request':
        this.answer(message.id, message.request);
        break;
      case 'outcome':
        this.settle(message.result);
        break;
    }
    this.check();
  }

  private answer(id: number, request: ChildRequest): void {
    const reply = (value: unknown, error: string | null = null): void => {
      this.send({ type: 'reply', id, value, error });
    };
    const { trial } = this.host;
    const pending = ((): ChildReplies[ChildRequest['kind']] | Promise<unknown> => {
      switch (request.kind) {
        case 'probe':
          return { crash: this.crashAt(request.probe, request.info) };
        case 'approval':
          return trial.operator.requestApproval(request.request);
        case 'next-command':
          return trial.operator.nextCommand();
        case 'revoke':
          return Promise.resolve(trial.credential.revoke?.()).then(() => null);
      }
    })();
    if (!(pending instanceof Promise)) {
      reply(pending);
      return;
    }
    pending.then(
      (value) => {
        reply(value);
      },
      (error: unknown) => {
        reply(null, error instanceof Error ? error.message : String(error));
      },
    );
  }

  /** Holds the clock unless the child is idle and every message both ways has landed. */
  private check(): void {
    if (!this.alive || this.frozen) return;
    if (!this.still()) {
      this.host.holdClock();
      return;
    }
    this.host.releaseWhenStill(() => this.alive && !this.frozen && this.still());
  }

  private still(): boolean {
    return this.idle?.received === this.sent && this.idle.sent === this.received;
  }
}

function reasonOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
