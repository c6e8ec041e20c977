import type { Check, Operation } from './blueprint.js';
import type { AutonomyMode, StopReason } from './contract.js';
import type { ResultClass } from './failure-class.js';
import type { WorkflowState } from './states.js';

/** Versions recorded on every run; a change on resume makes the run replan. */
export interface RunVersions {
  contract: string;
  contractHash: string;
  blueprint: string;
  blueprintHash: string;
  model: string;
  prompt: string;
  policy: string;
  toolSchemasHash: string;
}

export interface BudgetUse {
  toolCalls: number;
  retries: number;
  externalWrites: number;
  costUsd: number;
}

export interface RunRecord {
  id: string;
  state: WorkflowState;
  stopReason: StopReason | null;
  stopDetail: string | null;
  mode: AutonomyMode;
  objective: string;
  contract: unknown;
  blueprint: unknown;
  versions: RunVersions;
  input: Record<string, unknown>;
  planVersion: number;
  used: BudgetUse;
  lastSeq: number;
  compensationOwed: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One append-only event. Never carries a secret or a credential. */
export interface EventRecord {
  runId: string;
  seq: number;
  at: number;
  /**
   * The clock's event order when the event was committed (see `Clock.sequence`), when the
   * clock has one: what places it among the world's calls made in the same millisecond.
   */
  order?: number;
  type: string;
  fromState: WorkflowState | null;
  toState: WorkflowState | null;
  reason: string | null;
  operationId: string | null;
  actionId: string | null;
  inputRefs: string[];
  evidenceRefs: string[];
  policyRule: string | null;
  requestId: string | null;
  idempotencyKey: string | null;
  resultClass: ResultClass | null;
  budgetDelta: Partial<BudgetUse> | null;
  operatorAction: string | null;
  data: Record<string, unknown> | null;
}

export const CHECKPOINT_BOUNDARIES = [
  'validated-input',
  'approved-plan',
  'confirmed-action',
  'verified-outcome',
] as const;
export type CheckpointBoundary = (typeof CHECKPOINT_BOUNDARIES)[number];

export interface CheckpointRecord {
  runId: string;
  seq: number;
  at: number;
  boundary: CheckpointBoundary;
  state: WorkflowState;
  data: Record<string, unknown>;
}

export const ACTION_STATUSES = [
  'intended',
  'sent',
  'confirmed',
  'ambiguous',
  'reconciled',
  'failed',
  'compensated',
  'skipped',
  'proposed',
] as const;
/**
 * intended → sent → confirmed | ambiguous → reconciled | failed | compensated. `skipped` is an
 * operation whose `when` did not hold; `proposed` a write that shadow mode did not execute.
 */
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** Statuses of an operation that needs no more work (a view's `pending` is not one). */
export const DONE_STATUSES: ReadonlySet<string> = new Set<ActionStatus>([
  'confirmed',
  'reconciled',
  'skipped',
  'proposed',
  'compensated',
]);

export type ActionOrigin = 'blueprint' | 'content' | 'compensation';

export interface ActionRecord {
  id: string;
  runId: string;
  operationId: string;
  tool: string;
  kind: 'read' | 'write';
  args: Record<string, unknown>;
  idempotencyKey: string | null;
  status: ActionStatus;
  attempts: number;
  result: unknown;
  errorClass: string | null;
  origin: ActionOrigin;
  approvalId: string | null;
  compensates: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A plan the planner wrote as data (validated by the proposal schema), kept with its plan record. */
export interface WrittenPlan {
  operations: Operation[];
  completion: Check[];
}

export interface PlanRecord {
  runId: string;
  version: number;
  at: number;
  reason: string;
  operations: string[];
  /** The plan itself, when the planner wrote it as data (an objective-only run). */
  written?: WrittenPlan;
}

export interface EvidenceRecord {
  id: string;
  runId: string;
  at: number;
  operationId: string | null;
  tool: string;
  requestId: string | null;
  trust: 'trusted' | 'untrusted';
  content: unknown;
}

export type ApprovalStatus = 'requested' | 'granted' | 'denied' | 'consumed';

export interface ApprovalRecord {
  id: string;
  runId: string;
  actionId: string;
  tool: string;
  status: ApprovalStatus;
  approver: string | null;
  reason: string | null;
  requestedAt: number;
  decidedAt: number | null;
  consumedAt: number | null;
  scope: Record<string, unknown>;
  preview: Record<string, unknown>;
  evidenceRefs: string[];
  /** Single-use token for exactly this action; kept so a resumed run can still present it. */
  token: string | null;
}
