import type {
  ApprovalDecision,
  ApprovalRequest,
  Operator,
  OperatorCommand,
} from '../../runtime/operator.js';
import type { ParentLink } from './parent-link.js';

/**
 * The child's line to the person in the loop, who stays with the parent: approvals and the
 * wait while paused are requests; `poll` hands out the commands the parent shipped ahead (it
 * must answer synchronously) and reports each one taken, so none is lost to a crash.
 */
export class RemoteOperator implements Operator {
  constructor(private readonly link: ParentLink) {}

  requestApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    return this.link.request({ kind: 'approval', request });
  }

  poll(): OperatorCommand | undefined {
    const command = this.link.commands.shift();
    if (command) this.link.send({ type: 'taken' });
    return command;
  }

  nextCommand(): Promise<OperatorCommand> {
    return Promise.resolve(this.poll() ?? this.link.request({ kind: 'next-command' }));
  }
}
