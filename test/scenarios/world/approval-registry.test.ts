import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import { ApprovalRegistry } from '../../../scenarios/world/approval-registry.js';

const request = {
  runId: 'run-a',
  tool: 'issue_refund',
  identity: 'refund:ord_1:6000',
  approver: 'ops',
};

describe('ApprovalRegistry', () => {
  it('grants deterministic tokens and records when', () => {
    const clock = new VirtualClock({ start: 500 });
    const approvals = new ApprovalRegistry(clock);

    expect(approvals.grant(request)).toEqual({ token: 'apr_1' });
    expect(approvals.grant(request)).toEqual({ token: 'apr_2' });
    expect(approvals.records()[0]).toMatchObject({
      ...request,
      grantedAt: 500,
      consumedAt: null,
      consumedBy: null,
    });
  });

  it('redeems a token once, for exactly its action, and records who consumed it', () => {
    const clock = new VirtualClock();
    const approvals = new ApprovalRegistry(clock);
    const { token } = approvals.grant(request);
    clock.advanceTo(9_000);

    const first = approvals.consume(token, 'issue_refund', 'refund:ord_1:6000', '4');
    const again = approvals.consume(token, 'issue_refund', 'refund:ord_1:6000', '5');

    expect(first).toEqual({ ok: true });
    expect(again).toEqual({ ok: false, reason: 'reused' });
    expect(approvals.records()[0]).toMatchObject({ consumedAt: 9_000, consumedBy: '4' });
  });

  it('refuses a token for another tool or identity without consuming it', () => {
    const approvals = new ApprovalRegistry(new VirtualClock());
    const { token } = approvals.grant(request);

    expect(approvals.consume(token, 'issue_refund', 'refund:ord_1:7000')).toEqual({
      ok: false,
      reason: 'wrong-action',
    });
    expect(approvals.consume(token, 'void_refund', 'refund:ord_1:6000')).toEqual({
      ok: false,
      reason: 'wrong-action',
    });
    expect(approvals.consume(token, 'issue_refund', 'refund:ord_1:6000')).toEqual({ ok: true });
  });

  it('refuses a missing or unknown token', () => {
    const approvals = new ApprovalRegistry(new VirtualClock());

    expect(approvals.consume(undefined, 'issue_refund', 'x')).toEqual({
      ok: false,
      reason: 'missing',
    });
    expect(approvals.consume('apr_404', 'issue_refund', 'x')).toEqual({
      ok: false,
      reason: 'unknown',
    });
  });
});
