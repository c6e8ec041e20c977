import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ActionGate } from './action-gate.js';
import type { ApprovalRequests } from './approval-requests.js';
import type { Clock } from './clock.js';
import type { StopReason } from './contract.js';
import type { RunCredential } from './credential.js';
import type { ProbeHandler } from './crash-probe.js';
import type { Executor } from './executor.js';
import type { FailureHandling } from './failure-handling.js';
import type { Operator } from './operator.js';
import type { OperatorDesk } from './operator-desk.js';
import type { Planner } from './planner.js';
import type { PlannerContext } from './planner-context.js';
import type { PreSendChecks } from './pre-send-checks.js';
import type { Reconciler } from './reconciler.js';
import type { RunBinding } from './run-binding.js';
import type { RunLedger } from './run-ledger.js';
import type { RunLoop } from './run-loop.js';
import type { Safeguards } from './safeguards.js';
import type { WorkflowState } from './states.js';
import type { RunStore } from './store.js';
import type { ToolReads } from './tool-reads.js';
import type { Verification } from './verification.js';
import type { WriteProtocol } from './write-protocol.js';

/** Everything a runtime instance is handed; it reaches nothing else. */
export interface RuntimeOptions {
  store: RunStore;
  /** A connected MCP client to the world's tools. */
  client: Client;
  clock: Clock;
  credential: RunCredential;
  operator?: Operator;
  /** Defaults to a `ScriptedPlanner` over the run's blueprint. */
  planner?: Planner;
  /** Wraps the planner (a harness injects model faults this way). */
  decoratePlanner?: (planner: Planner) => Planner;
  safeguards?: Partial<Safeguards>;
  probe?: ProbeHandler;
  signal?: AbortSignal;
  policyVersion?: string;
  /** Per-call timeout on the runtime's clock. Default 30 s. */
  callTimeoutMs?: number;
  backoff?: { baseMs: number; capMs: number };
}

/** How a run ended (or paused): terminal state or `blocked`, and why. */
export interface RunOutcome {
  runId: string;
  state: WorkflowState;
  stopReason: StopReason | null;
  detail: string | null;
}

/**
 * The roles of one runtime instance and what they share: the instance's fixed dependencies
 * (store, clock, executor, operator, safeguards, options) and each role, reached by name. A
 * role holds this handle and reaches another role only through it; the roles import one
 * another's types only, so no module depends on another's code. `ReferenceRuntime` builds one.
 */
export interface RunRoles {
  readonly options: RuntimeOptions;
  readonly store: RunStore;
  readonly clock: Clock;
  readonly executor: Executor;
  readonly operator: Operator;
  readonly safeguards: Safeguards;
  readonly callTimeoutMs: number;
  readonly backoff: { baseMs: number; capMs: number };

  /** The mirror of committed records; the only role that commits to the store. */
  readonly ledger: RunLedger;
  /** The run's fixed inputs: id, contract, plan in force, planner, keys, call hooks. */
  readonly binding: RunBinding;
  /** The turn: budgets, proposal, validation, dispatch. */
  readonly loop: RunLoop;
  /** The replay-safe write: gate, checks, intent, send, outcome. */
  readonly writes: WriteProtocol;
  /** Settling writes whose outcome is unknown; committing confirmed outcomes. */
  readonly reconciler: Reconciler;
  /** Preconditions, citations and already-done checks before a send. */
  readonly checks: PreSendChecks;
  /** The planner's reads and the fresh reads made to check something. */
  readonly reads: ToolReads;
  /** The policy gate's verdict and the budgets an action spends. */
  readonly policyGate: ActionGate;
  /** Asking a person for an approval. */
  readonly approvalRequests: ApprovalRequests;
  /** Operator commands, cancellation and compensation. */
  readonly operatorDesk: OperatorDesk;
  /** What the planner sees: working context, last failure, resume packet. */
  readonly plannerContext: PlannerContext;
  /** Acting on the supervisor's decisions: wait and retry, replan, stop. */
  readonly failures: FailureHandling;
  /** Postconditions and the run's finish. */
  readonly verification: Verification;
}
