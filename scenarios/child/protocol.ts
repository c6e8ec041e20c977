import type { Contract } from '../../runtime/contract.js';
import type { CrashProbe, ProbeInfo } from '../../runtime/crash-probe.js';
import type { Scope } from '../../runtime/credential.js';
import type { ApprovalDecision, ApprovalRequest, OperatorCommand } from '../../runtime/operator.js';
import type { Safeguards } from '../../runtime/safeguards.js';
import type { Blueprint } from '../../runtime/blueprint.js';
import type { AgentOutcome } from '../agent.js';

/*
 * The child-process protocol. The agent under test runs in its own Node process; the world,
 * the fault layer, the operator and the virtual clock stay in the parent (the engine). Two
 * channels join them:
 *
 * - MCP (JSON-RPC lines) on the child's stdin/stdout: the agent's tool calls, through the
 *   engine's wire-fault layer exactly as in process. Nothing else is ever written to stdout.
 * - The Node IPC channel: everything else — the clock, the operator, crash probes, the
 *   outcome — as the messages below.
 *
 * Ordering. The two channels are separate pipes, so the child cannot tell by arrival which of
 * an IPC message and an MCP line was sent first. Every parent message therefore travels in an
 * IPC envelope carrying the current virtual time and any operator commands, and before each
 * MCP line the parent sends an IPC `mcp` mark numbering it; the child dispatches MCP line n
 * only once mark n has been applied. The IPC channel alone thus fixes the order in which the
 * child learns the time, operator commands and replies — as in process, where they are all
 * one event loop.
 *
 * Time. `now()` must be synchronous, so the child keeps the time the last envelope carried;
 * it cannot go stale, because virtual time advances only while the child is idle with nothing
 * in flight (below), and whatever wakes the child next is an envelope with the new time. Sleeps
 * and timers are registered on the parent's clock (`timer`, `cancel-timer`) and end with `fire`.
 *
 * The time rule. Virtual time may advance only when every party waits on the clock. Both sides
 * count the messages they send and receive on both channels (the `idle` report itself is not
 * counted). The child reports `idle` with its counts once its event loop has gone two
 * `setImmediate` turns with nothing new received or sent; the parent holds its clock from the
 * moment an incarnation starts and releases the hold only while the child's latest `idle` report
 * matches the parent's own counts exactly — the child has handled everything the parent sent,
 * and the parent has received everything the child sent. Any new message in either direction
 * breaks the match and re-takes the hold, synchronously, before the clock can look. A dead
 * child's timers are cancelled, and the hold is kept from a crash until the next child reports
 * idle, so no time passes while a process restarts. No deadlock: a child waiting on a timer
 * sends nothing, so it reports idle as soon as in-flight messages land, and the parent then
 * releases.
 *
 * Probes. The parent names the armed probes at start; at each of them the child asks the parent
 * (`probe` request) whether to crash — the fault injector decides, so hit counts live in the
 * parent across incarnations — and on "crash" sends itself SIGKILL. `after-apply` (and
 * `applied-write`, a crash after the run's nth applied write) happens in the parent: the world
 * applied the write, the reply is withheld, and the parent kills the child. A child importing
 * an agent module counts as busy until the import settles (`ParentLink.busy`), so no virtual
 * time passes while it loads.
 *
 * Operator. Approvals and `nextCommand` are requests answered by the parent's operator. `poll`
 * is synchronous, so the parent polls its operator whenever it sends an envelope and ships any
 * command in it; the child queues them, hands them out from `poll`, and reports each one
 * `taken`. Commands sent but not taken when a child dies are sent again to the next one.
 */

/**
 * What the child needs to rebuild the agent under test: the reference runtime from data (its
 * safeguards), or any agent from its module (absolute path; default export an agent or a
 * factory), which the child imports.
 */
export type ChildAgentSpec =
  { name: string; safeguards: Partial<Safeguards> } | { name: string; module: string };

/** The run, as plain data: the credential without its revoke function (revoke is a request). */
export interface ChildRunSpec {
  runId: string;
  objective: string;
  contract: Contract;
  blueprint: Blueprint;
  input: Record<string, unknown>;
  credential: { token: string; scope: Scope; expiresAt: number };
  storePath: string;
}

export type ToChild =
  | {
      type: 'init';
      agent: ChildAgentSpec;
      run: ChildRunSpec;
      resume: boolean;
      /** Probes the child must ask about; it skips the others. */
      armed: CrashProbe[];
      /** Set when the engine's deadline passed before this child started. */
      aborted: string | null;
    }
  /** MCP line `seq` (1-based, per child) follows on stdin. */
  | { type: 'mcp'; seq: number }
  | { type: 'fire'; timer: number }
  /** The answer to request `id`, or why the parent could not give one. */
  | { type: 'reply'; id: number; value: unknown; error: string | null }
  | { type: 'abort'; reason: string };

/** Every parent message: the body, the virtual time, and operator commands to queue. */
export interface Envelope {
  now: number;
  commands: OperatorCommand[];
  body: ToChild;
}

export type ChildRequest =
  | { kind: 'approval'; request: ApprovalRequest }
  | { kind: 'next-command' }
  | { kind: 'probe'; probe: CrashProbe; info: ProbeInfo }
  | { kind: 'revoke' };

/** The answer to each request kind. */
export interface ChildReplies {
  approval: ApprovalDecision;
  'next-command': OperatorCommand;
  probe: { crash: boolean };
  revoke: null;
}

export type FromChild =
  | { type: 'timer'; timer: number; ms: number }
  | { type: 'cancel-timer'; timer: number }
  | { type: 'request'; id: number; request: ChildRequest }
  | { type: 'taken' }
  | {
      type: 'outcome';
      result: { ok: true; outcome: AgentOutcome } | { ok: false; message: string };
    }
  /** Not counted: the child's loop drained after receiving and sending this many messages. */
  | { type: 'idle'; received: number; sent: number };
