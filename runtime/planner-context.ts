import { DONE_STATUSES } from './records.js';
import type { ResumePacket, WorkingContext } from './working-context.js';
import { isObjectiveOnly } from './written-plan.js';
import { mayHaveBeenSent } from './step-result.js';
import type { RunRoles } from './run-roles.js';

/**
 * What the planner sees: the working context of each turn (live operation views, evidence,
 * results — shared, never copied: the scripted planner resumes its scan on the same views),
 * the last failure it should replan around, and the resume packet of a resumed run.
 */
export class PlannerContext {
  lastFailure: WorkingContext['lastFailure'];
  resumePacket: ResumePacket | undefined;

  constructor(private readonly rt: RunRoles) {}

  /** What the planner is given this turn (live views, evidence and results: not copies). */
  workingContext(): WorkingContext {
    const context: WorkingContext = {
      runId: this.rt.binding.runId,
      objective: this.rt.binding.contract.objective,
      decisionBoundary: this.rt.binding.contract.decisionBoundary,
      mode: this.rt.binding.contract.autonomy,
      input: this.rt.ledger.run.input,
      planVersion: this.rt.ledger.run.planVersion,
      operations: this.rt.ledger.views,
      evidence: this.rt.ledger.evidence,
      scope: this.rt.ledger.scope(),
      plan: {
        by: isObjectiveOnly(this.rt.binding.versionedBlueprint) ? 'objective' : 'blueprint',
        operations: this.rt.binding.blueprint.operations,
        completion: this.rt.binding.blueprint.completion,
      },
      tools: this.rt.executor.tools,
      evidenceRequired: this.rt.binding.contract.evidenceRequired,
    };
    if (this.lastFailure) context.lastFailure = this.lastFailure;
    if (this.resumePacket) context.resume = this.resumePacket;
    return context;
  }

  /** What a resumed run tells its planner: confirmed actions, open questions, authority left. */
  buildResumePacket(): ResumePacket {
    const confirmed = [...this.rt.ledger.actions.values()].filter(
      (a) => a.status === 'confirmed' || a.status === 'reconciled',
    );
    const open = [...this.rt.ledger.actions.values()].filter(mayHaveBeenSent);
    const pendingApprovals = [...this.rt.ledger.approvals.values()].filter(
      (a) => a.status === 'requested',
    );
    const b = this.rt.binding.contract.budgets;
    const u = this.rt.ledger.run.used;
    return {
      objective: this.rt.binding.contract.objective,
      state: this.rt.ledger.run.state,
      confirmedActions: confirmed.map((a) => ({
        operationId: a.operationId,
        tool: a.tool,
        result: a.result,
      })),
      openQuestions: [
        ...open.map((a) => `did ${a.operationId} (${a.tool}) take effect?`),
        ...pendingApprovals.map((a) => `approval ${a.id} is still pending`),
      ],
      remainingAuthority: {
        tools: Object.keys(this.rt.binding.contract.authority.tools),
        budgets: {
          toolCalls: b.toolCalls - u.toolCalls,
          retries: b.retries - u.retries,
          externalWrites: b.externalWrites - u.externalWrites,
          virtualTimeMs: b.virtualTimeMs - (this.rt.clock.now() - this.rt.ledger.run.createdAt),
        },
      },
      eligibleNextActions: this.rt.binding.blueprint.operations
        .filter((o) => !DONE_STATUSES.has(this.rt.ledger.actions.get(o.id)?.status ?? 'pending'))
        .map((o) => o.id),
    };
  }
}
