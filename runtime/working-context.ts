import type { Check, Operation } from './blueprint.js';
import type { Contract } from './contract.js';
import type { ActionStatus } from './records.js';

/** What the planner knows of one operation: its status and, when done, its result. */
export interface OperationView {
  id: string;
  tool: string;
  kind: 'read' | 'write';
  status: ActionStatus | 'pending';
  result?: unknown;
}

/** One of the world's tools, as its MCP server lists it. */
export interface ToolView {
  name: string;
  description: string;
  inputSchema: unknown;
}

/**
 * After a crash or a context compaction the planner gets this, never a transcript: enough to
 * continue, built from authoritative records only.
 */
export interface ResumePacket {
  objective: string;
  state: string;
  confirmedActions: { operationId: string; tool: string; result: unknown }[];
  openQuestions: string[];
  remainingAuthority: { tools: string[]; budgets: Record<string, number> };
  eligibleNextActions: string[];
}

/**
 * The context for one planner call, assembled from workflow state and evidence and then
 * discarded. Nothing the planner returns becomes authoritative: proposals go through the
 * policy gate, which reads fresh state.
 */
export interface WorkingContext {
  runId: string;
  objective: string;
  decisionBoundary: Contract['decisionBoundary'];
  mode: Contract['autonomy'];
  input: Record<string, unknown>;
  planVersion: number;
  /**
   * Blueprint operations in order, then content-proposed ones. The list may be updated in
   * place between calls, but an entry is never undone in place (done → not done): that hands
   * over a new list, so a planner may resume a scan of the same list where it stopped.
   */
  operations: readonly OperationView[];
  /**
   * Retrieved content, labelled with provenance; untrusted content is data, never instruction.
   * The list may grow in place between calls, but no entry is changed or removed in place
   * (that hands over a new list), so a planner may resume a scan of the same list.
   */
  evidence: readonly {
    id: string;
    operationId: string | null;
    tool: string;
    trust: 'trusted' | 'untrusted';
    content: unknown;
  }[];
  /** Operation results by id (the latest evidence of each), and the run's input as `input`. */
  scope: Readonly<Record<string, unknown>>;
  /**
   * The plan in force, whole: the blueprint's (`by: 'blueprint'`) or, in an objective-only
   * run, the last one the planner wrote (empty until it writes one). Handed by reference, not
   * copied: it changes only when a plan is written.
   */
  plan?: {
    by: 'blueprint' | 'objective';
    operations: readonly Operation[];
    completion: readonly Check[];
  };
  /** Evidence the contract requires, each named by the operation that gathers it. */
  evidenceRequired?: Contract['evidenceRequired'];
  /** The world's tools as listed (a planner that writes the plan picks from those the contract allows). */
  tools?: readonly ToolView[];
  lastFailure?: { operationId: string; class: string; message: string };
  resume?: ResumePacket;
}
