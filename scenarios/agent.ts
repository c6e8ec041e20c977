import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Blueprint } from '../runtime/blueprint.js';
import type { Clock } from '../runtime/clock.js';
import type { Contract } from '../runtime/contract.js';
import type { RunCredential } from '../runtime/credential.js';
import type { ProbeHandler } from '../runtime/crash-probe.js';
import type { Operator } from '../runtime/operator.js';
import type { Planner } from '../runtime/planner.js';
import type {
  ActionRecord,
  CheckpointRecord,
  EventRecord,
  EvidenceRecord,
} from '../runtime/records.js';

/**
 * Everything an agent under test is given for one incarnation (a start, or a resume after a
 * crash). It reaches the world only through `client`, reads time only from `clock`, and keeps
 * whatever it must survive a crash under `storePath`.
 */
export interface AgentRun {
  runId: string;
  objective: string;
  contract: Contract;
  /** The reference plan, for agents that follow one. */
  blueprint: Blueprint;
  input: Record<string, unknown>;
  client: Client;
  clock: Clock;
  credential: RunCredential;
  /** A file path the agent may use for durable state; the same on every incarnation. */
  storePath: string;
  signal: AbortSignal;
  operator: Operator;
  /** Armed crash probes; agents that expose none simply never crash at a probe. */
  probe?: ProbeHandler;
  /** Model faults wrap the planner; agents without a planner ignore it. */
  decoratePlanner?: (planner: Planner) => Planner;
}

/** How an incarnation ended, in the agent's own words (graders check the world, not this). */
export interface AgentOutcome {
  state: string;
  stopReason: string | null;
  detail: string | null;
}

/** White-box records an agent may expose for grading; all optional. */
export interface AgentRecords {
  events: EventRecord[];
  actions: ActionRecord[];
  checkpoints: CheckpointRecord[];
  /** Evidence the agent kept, with provenance; graders check required evidence is linked. */
  evidence?: EvidenceRecord[];
}

/**
 * The agent-under-test interface: small on purpose. `start` begins a run; `resume` continues
 * one after a crash from whatever the agent kept at `storePath`. `records` is read once the run
 * is over, for white-box grading.
 *
 * @example
 * ```ts
 * const agent: AgentUnderTest = { name: 'mine', start: async (run) => …, resume: async (run) => … };
 * ```
 */
export interface AgentUnderTest {
  readonly name: string;
  start(run: AgentRun): Promise<AgentOutcome>;
  resume(run: AgentRun): Promise<AgentOutcome>;
  records?(storePath: string, runId: string): AgentRecords | undefined;
  /** In-process crash: drop every handle the current incarnation holds (its store above all). */
  discard?(): void;
}
