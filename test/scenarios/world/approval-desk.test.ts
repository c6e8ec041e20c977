import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../../graders/index.js';
import { runTrial } from '../../../scenarios/engine.js';
import { approvalDenied } from '../../../scenarios/library/refunds/approval-denied.js';
import { fullRefund } from '../../../scenarios/library/refunds/full-refund.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { stockAgent, stockLog, type StockOptions } from '../../support/stock-agent.js';
import { plan, tmpOut } from '../../support/trial-harness.js';
import type { FaultPlan } from '../../../faults/catalog.js';
import { ScriptedOperator } from '../../../scenarios/scripted-operator.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import { ApprovalDesk } from '../../../scenarios/world/approval-desk.js';
import { WorldError } from '../../../scenarios/world/world-error.js';
import { RefundsWorld } from '../../../scenarios/worlds/refunds/world.js';

async function run(scenario: Scenario, options: StockOptions, faultPlan?: FaultPlan) {
  const log = stockLog();
  const result = await runTrial({
    scenario,
    agent: () => stockAgent(log, options),
    outDir: tmpOut(),
    ...(faultPlan ? { faultPlan } : {}),
  });
  const grades = gradeRun(scenario, result.trajectory);
  const codes = Object.values(grades.grades).flatMap((g) => g.findings.map((f) => f.code));
  return { log, t: result.trajectory, grades, codes };
}

describe('approvals as tools, through the engine', () => {
  it('grants a change asked for with request_approval; the write presenting the token is accepted and graded within policy', async () => {
    const { log, t, grades } = await run(fullRefund, { approve: true, key: () => 'refund-1' });

    expect(log.approvals).toEqual([{ status: 'granted', approval_token: 'apr_1' }]);
    const refund = t.ledger.find((e) => e.tool === 'issue_refund');
    expect(refund?.approvalToken).toBe('apr_1');
    expect(t.approvals).toMatchObject([{ token: 'apr_1', tool: 'issue_refund', consumedAt: 0 }]);
    // Not world calls: the approval tools are nowhere in the wire log.
    expect(t.calls.map((c) => c.tool)).toEqual([
      'get_order',
      'issue_refund',
      'send_customer_message',
    ]);
    expect(t.calls[1]).toMatchObject({ approvalToken: 'apr_1', idempotencyKey: 'refund-1' });
    expect(t.operator.map((o) => o.kind)).toEqual(['agent.approval-request', 'approval.granted']);
    expect(grades.grades.policy.pass).toBe(true);
    expect(grades.grades['tool-use'].findings).toEqual([]);
    expect(grades.pass).toBe(true);
    // Its own client over run.connect(), never closed by the agent: the engine closed it.
    expect(log.closed).toBe(true);
  });

  it('flags the same write sent without asking: refused by the world, approval-missing by the policy grader', async () => {
    const { log, t, codes } = await run(fullRefund, {});

    expect(log.refusals[0]).toContain('approval missing');
    expect(t.ledger.filter((e) => e.tool === 'issue_refund')).toEqual([]);
    expect(codes).toContain('approval-missing');
  });

  it('answers a denial with its reason, after waiting in virtual time (pending until the operator decides)', async () => {
    const { log, t } = await run(approvalDenied, { approve: true });

    // The operator answers after 2 h; each wait ends after 30 s of virtual time, pending.
    const pending = log.approvals.filter((a) => a.status === 'pending');
    expect(pending.length).toBeGreaterThan(200);
    expect(log.approvals.at(-1)).toEqual({
      status: 'denied',
      reason: 'order is under fraud review',
    });
    expect(t.operator.map((o) => o.kind)).toEqual(['agent.approval-request', 'approval.denied']);
    expect(log.refusals[0]).toContain('approval missing');
    expect(t.ledger.filter((e) => e.tool === 'issue_refund')).toEqual([]);
    expect(t.times.virtualMs).toBeGreaterThanOrEqual(2 * 3_600_000);
  });

  it('closes the connections an incarnation opened with run.connect() when it crashes, and again at the end', async () => {
    const { log, t } = await run(
      fullRefund,
      { approve: true, key: () => 'refund-1' },
      plan('crash', { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply' } }),
    );

    expect(t.crashes).toHaveLength(1);
    expect(log.opened).toBe(2);
    expect(log.closes).toBe(2);
    // The wire log keeps the incarnation apart from the connection.
    expect([...new Set(t.calls.map((c) => c.incarnation))]).toEqual([0, 1]);
  });

  it('goes through the fault-wrapped operator: an approval-denied fault denies the tool request too', async () => {
    const { log, t } = await run(
      fullRefund,
      { approve: true },
      plan('deny-first', {
        kind: 'approval-denied',
        trigger: { on: 'approval', nth: 1 },
        reason: 'fault says no',
      }),
    );

    expect(log.approvals).toEqual([{ status: 'denied', reason: 'fault says no' }]);
    expect(t.faults.fired).toHaveLength(1);
  });
});

describe('ApprovalDesk', () => {
  function desk(): { desk: ApprovalDesk; clock: VirtualClock; operator: ScriptedOperator } {
    const clock = new VirtualClock();
    const world = new RefundsWorld({ seed: 7, clock });
    const operator = new ScriptedOperator(fullRefund.operator, world, clock, fullRefund.contract);
    return { desk: new ApprovalDesk({ world, operator, clock, runId: 'run-1' }), clock, operator };
  }

  function refusal(call: () => unknown): WorldError {
    try {
      call();
    } catch (error) {
      if (error instanceof WorldError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('asks the careful operator, who declines a change outside the contract whatever the script says', async () => {
    const { desk: d } = desk();

    const { request_id } = d.request('issue_refund', {
      order_id: 'ord_2',
      amount_cents: 100,
      reason: 'not this order',
    });
    const answer = await d.wait(request_id);

    expect(answer.status).toBe('denied');
    expect(answer.reason).toContain('outside policy');
  });

  it('grants for the change as the world will see it: the contract arguments in it are left out', async () => {
    const clock = new VirtualClock();
    const world = new RefundsWorld({ seed: 7, clock });
    const scripted = new ScriptedOperator(fullRefund.operator, world, clock, fullRefund.contract);
    const asked: Record<string, unknown>[] = [];
    const d = new ApprovalDesk({
      world,
      clock,
      runId: 'run-1',
      operator: {
        requestApproval: (request) => {
          asked.push(request.args);
          return scripted.requestApproval(request);
        },
        poll: () => undefined,
        nextCommand: () => scripted.nextCommand(),
      },
    });

    const { request_id, status } = d.request('issue_refund', {
      order_id: 'ord_1',
      amount_cents: 500,
      reason: 'damaged',
      idempotency_key: 'k',
      approval_token: 'apr_0',
    });
    const answer = await d.wait(request_id);

    expect(status).toBe('pending');
    expect(asked).toEqual([{ order_id: 'ord_1', amount_cents: 500, reason: 'damaged' }]);
    expect(answer).toEqual({ status: 'granted', approval_token: 'apr_1' });
    expect(d.get(request_id)).toEqual(answer);
    expect(scripted.log.map((o) => o.detail)).toEqual(['issue_refund approval-1 by ops-lead']);
  });

  it('refuses what cannot be approved, and a request it never saw', () => {
    const { desk: d } = desk();

    expect(refusal(() => d.request('nope', {})).class).toBe('invalid_argument');
    expect(refusal(() => d.request('get_order', { order_id: 'ord_1' })).message).toContain(
      'never needs an approval',
    );
    expect(refusal(() => d.request('issue_refund', { order_id: 'ord_1' })).message).toContain(
      'amount_cents',
    );
    expect(refusal(() => d.get('approval-9')).class).toBe('not_found');
  });

  it('waits no longer than the timeout in virtual time, then answers pending', async () => {
    const clock = new VirtualClock();
    const world = new RefundsWorld({ seed: 7, clock });
    const slow = new ScriptedOperator(
      approvalDenied.operator,
      world,
      clock,
      approvalDenied.contract,
    );
    const d = new ApprovalDesk({ world, operator: slow, clock, runId: 'run-1' });

    const { request_id } = d.request('issue_refund', {
      order_id: 'ord_7',
      amount_cents: 100,
      reason: 'x',
    });
    const first = await d.wait(request_id, 60_000);

    expect(first).toEqual({ status: 'pending' });
    expect(clock.now()).toBe(60_000);
  });
});
