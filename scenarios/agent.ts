import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ModelSettings } from '../models/model-setup.js';
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
  RunVersions,
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
  /** A stock MCP client, connected to the world; the run's credential is bound to it. */
  client: Client;
  /**
   * A fresh client-side transport to the world, through the same fault layer and wire log as
   * `client`, the credential bound: for an agent that brings its own MCP client
   * (`await new Client(info).connect(await run.connect())`). The engine closes it when the
   * incarnation ends or crashes.
   */
  connect(): Promise<Transport>;
  clock: Clock;
  credential: RunCredential;
  /** A file path the agent may use for durable state; the same on every incarnation. */
  storePath: string;
  /** This incarnation's: aborted at the run's deadline, and when the incarnation crashes. */
  signal: AbortSignal;
  operator: Operator;
  /** Armed crash probes; agents that expose none simply never crash at a probe. */
  probe?: ProbeHandler;
  /** Model faults wrap the planner; agents without a planner ignore it. */
  decoratePlanner?: (planner: Planner) => Planner;
  /**
   * The model the run was given (`--model`, or a language model object through the API), with
   * the harness around it: cassettes, model faults, and metering of tokens, cost and latency
   * into the trajectory. An agent that calls a model should call this one (`exposes.model`).
   * Absent when the run has no model.
   */
  model?: LanguageModelV3;
  /** The settings to call `model` with: the `--prompt` file's text, temperature and seed. */
  modelSettings?: ModelSettings;
}

/** How an incarnation ended, in the agent's own words (graders check the world, not this). */
export interface AgentOutcome {
  state: string;
  stopReason: string | null;
  detail: string | null;
}

/**
 * The small vocabulary an agent may answer in instead of faultline's workflow states: it
 * finished the job, it stopped (and why), or it handed the run to a person. Optional: an agent
 * may return nothing at all, and is then judged by the world alone.
 */
export type AgentReport =
  | { status: 'completed'; detail?: string }
  | { status: 'stopped'; reason?: string; detail?: string }
  | { status: 'escalated'; reason?: string; detail?: string };

/** What `start` and `resume` may return (`void`, so an `async` agent may simply return). */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type
export type AgentResult = AgentOutcome | AgentReport | undefined | void;

/** Any answer an agent gave, as the trajectory records it (`returned` when it said nothing). */
export function agentOutcome(result: AgentResult): AgentOutcome {
  if (result === undefined) return { state: 'returned', stopReason: null, detail: null };
  if ('state' in result) return result;
  const detail = result.detail ?? null;
  switch (result.status) {
    case 'completed':
      return { state: 'completed', stopReason: null, detail };
    case 'stopped':
      return { state: 'stopped', stopReason: result.reason ?? null, detail };
    case 'escalated':
      return { state: 'escalated', stopReason: result.reason ?? null, detail };
  }
}

/** White-box records an agent may expose for grading; all optional. */
export interface AgentRecords {
  events: EventRecord[];
  actions: ActionRecord[];
  checkpoints: CheckpointRecord[];
  /** Evidence the agent kept, with provenance; graders check required evidence is linked. */
  evidence?: EvidenceRecord[];
  /**
   * The versions the run was made under (contract, policy gate, planner, …), as the agent stored
   * them: run records carry the policy version from here, so comparisons can say it changed.
   */
  versions?: RunVersions;
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
  /** Shown beside the name in results and comparisons; else a hash of the agent's module. */
  readonly version?: string;
  start(run: AgentRun): Promise<AgentResult>;
  /** Continues after a crash from what the agent kept; an agent without it is started anew. */
  resume?(run: AgentRun): Promise<AgentResult>;
  /**
   * The faultline hooks the agent honours: crash probes it reports through `run.probe`, and a
   * planner it passes through `run.decoratePlanner`. Faults aimed at a hook the agent lacks are
   * not applicable to it. `clock`: the agent reads time only from `run.clock`; every other
   * in-process agent runs on run-scoped virtual timers (`setTimeout`, `Date`, its MCP client's
   * request timeouts). Absent: none.
   */
  readonly exposes?: {
    readonly probes?: boolean;
    readonly planner?: boolean;
    /** It calls `run.model`: model faults reach it there, and the run needs a model. */
    readonly model?: boolean;
    readonly clock?: boolean;
  };
  /**
   * The hash (`sha256:…`) of the system prompt the agent uses when the run gives none (no
   * `--prompt`): recorded as the run's prompt version, so a change of the default shows in
   * `compare`. Absent: the agent has no prompt of its own, or does not say.
   */
  readonly defaultPromptHash?: string;
  records?(storePath: string, runId: string): AgentRecords | undefined;
  /** In-process crash: drop every handle the current incarnation holds (its store above all). */
  discard?(): void;
}
