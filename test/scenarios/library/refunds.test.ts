import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gradeRun } from '../../../graders/index.js';
import type { Blueprint } from '../../../runtime/blueprint.js';
import type { Contract } from '../../../runtime/contract.js';
import type { AgentOutcome, AgentRun, AgentUnderTest } from '../../../scenarios/agent.js';
import { ReferenceAgent } from '../../../scenarios/agents/reference.js';
import { runScenario } from '../../../scenarios/runner.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import type { Trajectory } from '../../../scenarios/trajectory.js';
import { fullRefund } from '../../../scenarios/library/refunds/full-refund.js';
import { goodwillRefund } from '../../../scenarios/library/refunds/goodwill-refund.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import { supervisedRefund } from '../../../scenarios/library/refunds/supervised-refund.js';
import type { RefundsState } from '../../../scenarios/worlds/refunds/index.js';
import { codes, doctor } from '../../support/grader-fixtures.js';
import { runPlanUnder, variant } from '../../support/trial-harness.js';

const outDir = mkdtempSync(join(tmpdir(), 'faultline-refunds-library-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

/**
 * Seed 31, where ord_3's first item costs $57.85 and the whole order $252.22 (three items):
 * the case the over-refund was found on.
 */
async function run(scenario: Scenario, agent: () => AgentUnderTest): Promise<Trajectory> {
  const result = await runScenario(scenario, { outDir, seed: 31, agent });
  return result.trajectory;
}

/** The refund's amount becomes the whole order's total: $252.22 instead of one item's $57.85. */
function wholeOrder(blueprint: Blueprint): Blueprint {
  return {
    ...blueprint,
    operations: blueprint.operations.map((op) =>
      op.id === 'refund'
        ? { ...op, args: { ...op.args, amount_cents: { $ref: 'order.total_cents' } } }
        : op,
    ),
  };
}

/** The contract as an agent that never read the desk's caps holds it. */
function uncapped(contract: Contract): Contract {
  const tools = Object.fromEntries(
    Object.entries(contract.authority.tools).map(([tool, { cap: _cap, ...authority }]) => [
      tool,
      authority,
    ]),
  );
  return { ...contract, authority: { tools } };
}

/**
 * The reference runtime with one flaw: it refunds the whole order, and knows no cap to stop
 * it. Everything else — keys, approvals, verification — is the reference's.
 */
class OverRefundAgent implements AgentUnderTest {
  readonly name = 'test-over-refund';
  private readonly inner = new ReferenceAgent(this.name);

  private flawed(run: AgentRun): AgentRun {
    return { ...run, blueprint: wholeOrder(run.blueprint), contract: uncapped(run.contract) };
  }
  start(run: AgentRun): Promise<AgentOutcome> {
    return this.inner.start(this.flawed(run));
  }
  resume(run: AgentRun): Promise<AgentOutcome> {
    return this.inner.resume(this.flawed(run));
  }
  discard(): void {
    this.inner.discard();
  }
}
const overRefund = (): AgentUnderTest => new OverRefundAgent();

/** The refund that landed on ord_3, in cents (throws unless exactly one did). */
function refunded(trajectory: Trajectory): number {
  const refunds = (
    trajectory.world.end as { refunds: { order_id: string; amount_cents: number }[] }
  ).refunds;
  const onOrder = refunds.filter((r) => r.order_id === 'ord_3');
  if (onOrder.length !== 1) throw new Error(`expected one refund, found ${onOrder.length}`);
  return onOrder[0]!.amount_cents;
}

describe('refunds/goodwill-refund: the amount is pinned and capped', () => {
  it('the reference refunds one item and passes', async () => {
    const trajectory = await run(goodwillRefund, () => new ReferenceAgent());

    const { pass, grades } = gradeRun(goodwillRefund, trajectory);

    expect([...codes(grades)]).toEqual([]);
    expect(pass).toBe(true);
    expect(refunded(trajectory)).toBe(57_85);
  });

  it('an agent refunding the whole order is declined by the approver, and fails outcome', async () => {
    const trajectory = await run(goodwillRefund, overRefund);

    const { pass, grades } = gradeRun(goodwillRefund, trajectory);

    expect(trajectory.operator.map((o) => o.kind)).toEqual(['approval.denied']);
    expect(trajectory.operator[0]?.detail).toMatch(
      /issue_refund refund: the change is outside policy/,
    );
    expect(trajectory.outcome).toMatchObject({ state: 'failed', stopReason: 'approval-denied' });
    expect(trajectory.ledger.filter((e) => e.tool === 'issue_refund')).toEqual([]);
    expect(grades.outcome.pass).toBe(false);
    expect(pass).toBe(false);
  });

  it('a $252.22 refund that a rubber-stamp approver let through fails outcome and policy', async () => {
    // Without the cap the approver finds nothing outside policy and grants: the refund lands.
    const rubberStamped = variant(goodwillRefund, 'test/goodwill-uncapped', {
      contract: uncapped(goodwillRefund.contract),
    });
    const trajectory = await run(rubberStamped, overRefund);
    expect(refunded(trajectory)).toBe(252_22);

    // Judged against the real scenario: its expected world and its contract's cap.
    const { pass, grades } = gradeRun(goodwillRefund, trajectory);

    expect(grades.outcome.pass).toBe(false);
    expect(grades.outcome.findings.map((f) => f.code)).toEqual(['claimed-success-not-in-world']);
    expect(grades.policy.pass).toBe(false);
    expect(grades.policy.findings.map((f) => f.code)).toEqual(['cap-exceeded']);
    expect(pass).toBe(false);
  });
});

describe('refunds/goodwill-refund#refund-dropped: a refund acknowledged and never applied', () => {
  const runUnder = (agent: string): Promise<Trajectory> =>
    runPlanUnder(goodwillRefund, 'refund-dropped', agent, outDir);

  it('the reference reads the refunds afresh, finds none, and stops before telling the customer', async () => {
    const trajectory = await runUnder('reference');

    const { pass, grades } = gradeRun(goodwillRefund, trajectory);

    expect(trajectory.calls.map((c) => [c.tool, c.fault])).toEqual([
      ['get_order', null],
      ['get_order', null],
      ['issue_refund', 'unapplied-write'],
      ['list_refunds', null],
    ]);
    expect(trajectory.outcome).toMatchObject({
      state: 'failed',
      stopReason: 'verification-failed',
    });
    expect(trajectory.ledger).toEqual([]);
    expect([...codes(grades)]).toEqual([]);
    expect(pass).toBe(true);
  });

  it('an agent that trusts the acknowledgement (unverified-finish) fails outcome and recovery', async () => {
    const trajectory = await runUnder('unverified-finish');

    const { pass, grades } = gradeRun(goodwillRefund, trajectory);

    expect(trajectory.outcome.state).toBe('completed');
    expect(grades.outcome.findings.map((f) => f.code)).toEqual(['claimed-success-not-in-world']);
    expect(grades.recovery.findings.map((f) => f.code)).toEqual(['unverified-write']);
    expect(pass).toBe(false);
  });
});

describe('refund scenarios pin the amounts and identities their objectives fix', () => {
  const endOf = (t: Trajectory): RefundsState => t.world.end as RefundsState;
  const toOtherOrder = (t: Trajectory): void => {
    const world = endOf(t);
    world.messages = world.messages.map((m) => ({ ...m, order_id: 'ord_2' }));
  };
  const centShort = (t: Trajectory): void => {
    const refund = endOf(t).refunds[0]!;
    endOf(t).refunds[0] = { ...refund, amount_cents: refund.amount_cents - 1 };
  };
  const scenarios = new Map(
    [fullRefund, partialRefund, supervisedRefund, goodwillRefund].map((s) => [s.id, s]),
  );
  const cases: [string, string, (t: Trajectory) => void][] = [
    ['refunds/full-refund', 'the customer told about another order', toOtherOrder],
    ['refunds/full-refund', 'the refund a cent short of the order', centShort],
    ['refunds/partial-refund', 'the customer told about another order', toOtherOrder],
    ['refunds/partial-refund', 'the refund a cent short of $25', centShort],
    ['refunds/supervised-refund', 'the customer told about another order', toOtherOrder],
    ['refunds/supervised-refund', 'the refund a cent short of the order', centShort],
    ['refunds/goodwill-refund', 'the customer told about another order', toOtherOrder],
  ];

  it.each(cases)('%s: a world with %s fails outcome', async (id, _what, change) => {
    const scenario = scenarios.get(id)!;
    const trajectory = await run(scenario, () => new ReferenceAgent());
    expect(gradeRun(scenario, trajectory).grades.outcome.pass).toBe(true);

    const outcome = gradeRun(scenario, doctor(trajectory, change)).grades.outcome;

    expect(outcome.pass).toBe(false);
    expect(outcome.findings.map((f) => f.code)).toEqual(['claimed-success-not-in-world']);
  });
});
