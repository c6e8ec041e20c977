import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Operator, OperatorCommand } from '../../runtime/operator.js';
import { RunStore } from '../../runtime/store.js';
import {
  type Harness,
  ORDER,
  refundBlueprint,
  refundContract,
  refundHarness,
} from '../support/refund-harness.js';

/**
 * A person who answers approvals as `answer` says (granting through the world's registry, as
 * the scenario operator does) and cancels the run once the refund is in the world.
 */
function cancellingOperator(
  h: () => Harness,
  answer: (request: ApprovalRequest) => 'grant' | 'deny',
  asked: string[],
): Operator {
  let cancelled = false;
  return {
    requestApproval: (request) => {
      asked.push(request.operationId);
      const at = h().clock.now();
      if (answer(request) === 'deny')
        return Promise.resolve({ decision: 'denied', approver: 'lead', reason: 'not now', at });
      const identity =
        h().world.approvalIdentity(request.tool, request.args) ??
        `${request.tool}:${request.actionId}`;
      const { token } = h().world.approvals.grant({
        runId: request.runId,
        tool: request.tool,
        identity,
        approver: 'lead',
      });
      return Promise.resolve({ decision: 'granted', approver: 'lead', token, at });
    },
    poll: (): OperatorCommand | undefined => {
      if (cancelled || h().refunds().length === 0) return undefined;
      cancelled = true;
      return { kind: 'cancel', reason: 'customer withdrew the request' };
    },
    nextCommand: () => Promise.resolve({ kind: 'resume' }),
  };
}

/** The refund blueprint in supervised mode, cancelled once the refund is made. */
async function supervisedCancel(answer: (request: ApprovalRequest) => 'grant' | 'deny') {
  const asked: string[] = [];
  const h: Harness = refundHarness({
    honourKeys: true,
    operator: cancellingOperator(() => h, answer, asked),
  });
  const connection = await h.connect();
  const store = RunStore.open(h.storePath);
  try {
    const outcome = await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract({ autonomy: 'supervised' }),
      blueprint: refundBlueprint(true),
    });
    return {
      outcome,
      asked,
      calls: h.calls(),
      ledger: h.world.ledger.entries(),
      run: store.getRun('run-1'),
      approvals: store.approvals('run-1'),
      events: store.events('run-1'),
      actions: store.actions('run-1'),
    };
  } finally {
    store.close();
    await connection.close();
  }
}

describe('compensation in supervised mode', () => {
  it('asks a person before the undo too, and sends it with the granted token, used once', async () => {
    const r = await supervisedCancel(() => 'grant');

    expect(r.outcome.state).toBe('compensated');
    expect(r.asked).toEqual(['refund', 'compensate-refund']);
    const undo = r.calls.find((c) => c.tool === 'void_refund');
    expect(undo?.approvalToken).toEqual(expect.any(String));
    expect(undo?.approvalToken).not.toBe(
      r.calls.find((c) => c.tool === 'issue_refund')?.approvalToken,
    );
    const [refund, voided] = r.ledger;
    expect(voided).toMatchObject({ tool: 'void_refund', compensates: refund?.seq });
    expect(r.approvals.map((a) => [a.actionId, a.status])).toEqual([
      ['run-1:refund', 'consumed'],
      ['run-1:compensate-refund', 'consumed'],
    ]);
    // The run was cancelled before it waited: the wait for the undo's approval moves no state.
    const states = r.events.filter((e) => e.toState !== null).map((e) => e.toState);
    expect(states.slice(-2)).toEqual(['cancelled', 'compensated']);
    expect(r.run?.compensationOwed).toBe(false);
  });

  it('does not send an undo the person does not approve: the run stays cancelled, the compensation owed', async () => {
    const r = await supervisedCancel((request) =>
      request.operationId === 'refund' ? 'grant' : 'deny',
    );

    expect(r.outcome).toMatchObject({ state: 'cancelled', stopReason: 'cancelled' });
    expect(r.outcome.detail).toMatch(/compensation owed for refund, left to a person/);
    expect(r.asked).toEqual(['refund', 'compensate-refund']);
    expect(r.calls.some((c) => c.tool === 'void_refund')).toBe(false);
    expect(r.ledger.map((e) => e.tool)).toEqual(['issue_refund']);
    expect(r.run?.compensationOwed).toBe(true);
    expect(r.actions.find((a) => a.operationId === 'refund')?.status).toBe('confirmed');
    expect(r.actions.find((a) => a.operationId === 'compensate-refund')).toMatchObject({
      status: 'failed',
      errorClass: 'approval_denied',
    });
    expect(r.events.at(-1)).toMatchObject({
      type: 'run.compensation-owed',
      data: { compensationOwed: ['refund'] },
    });
  });
});
