import type { Clock } from '../runtime/clock.js';
import type { Contract } from '../runtime/contract.js';
import type {
  ApprovalDecision,
  ApprovalRequest,
  Operator,
  OperatorCommand,
} from '../runtime/operator.js';
import { outsideAuthority } from '../runtime/policy.js';
import type { Scenario } from './scenario.js';
import type { World } from './world/world.js';

/**
 * The person in the loop, played from the scenario's operator script. A careful person: the
 * script's answer applies only to a change preview within the contract's policy (its tool,
 * resources and caps); anything beyond it is declined, whatever the script says, as an
 * approver who reads what they sign would. A granted approval is registered with the world for
 * exactly that action, so the world can refuse a token that is reused or presented for
 * anything else.
 */
export class ScriptedOperator implements Operator {
  /** What the operator did, each stamped with its time and its place in the clock's order. */
  readonly log: { at: number; order?: number; kind: string; detail: string }[] = [];

  constructor(
    private readonly script: Scenario['operator'],
    private readonly world: World<unknown>,
    private readonly clock: Clock,
    private readonly contract: Contract,
  ) {}

  async requestApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    const answer = this.script.approvals;
    if (answer.afterMs > 0) await this.clock.sleep(answer.afterMs);
    const at = this.clock.now();
    const beyond = outsideAuthority(this.contract, request.tool, request.args)?.reason;
    const refusal =
      beyond !== undefined
        ? `the change is outside policy: ${beyond}`
        : answer.decision === 'deny'
          ? answer.reason
          : undefined;
    if (refusal !== undefined) {
      this.log.push({
        at,
        ...this.order(),
        kind: 'approval.denied',
        detail: `${request.tool} ${request.operationId}: ${refusal}`,
      });
      return { decision: 'denied', approver: answer.approver, reason: refusal, at };
    }
    const identity =
      this.world.approvalIdentity(request.tool, request.args) ??
      `${request.tool}:${request.actionId}`;
    const { token } = this.world.approvals.grant({
      runId: request.runId,
      tool: request.tool,
      identity,
      approver: answer.approver,
    });
    this.log.push({
      at,
      ...this.order(),
      kind: 'approval.granted',
      detail: `${request.tool} ${request.operationId} by ${answer.approver}`,
    });
    return { decision: 'granted', approver: answer.approver, token, at };
  }

  private issued = 0;

  /** The next place in the clock's order, when it keeps one. */
  private order(): { order?: number } {
    const order = this.clock.sequence?.();
    return order === undefined ? {} : { order };
  }

  /** The next scripted command once its time has come (commands are polled between steps). */
  poll(): OperatorCommand | undefined {
    const next = this.script.commands[this.issued];
    if (!next || next.atMs > this.clock.now()) return undefined;
    this.issued++;
    this.log.push({
      at: this.clock.now(),
      ...this.order(),
      kind: `operator.${next.kind}`,
      detail: next.reason,
    });
    return next.kind === 'cancel' ? { kind: 'cancel', reason: next.reason } : { kind: next.kind };
  }

  /** While paused: waits (in virtual time) for the next scripted command. */
  async nextCommand(): Promise<OperatorCommand> {
    const next = this.script.commands[this.issued];
    if (!next) return { kind: 'cancel', reason: 'paused, and the operator script never resumes' };
    if (next.atMs > this.clock.now()) await this.clock.sleep(next.atMs - this.clock.now());
    return this.poll() ?? { kind: 'resume' };
  }
}
