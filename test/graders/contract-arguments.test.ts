import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../graders/index.js';
import { runTrial } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { stockAgent, stockLog } from '../support/stock-agent.js';
import { plan, tmpOut } from '../support/trial-harness.js';

/** partialRefund (no approval) with its refund's first reply lost, by an agent that sends keys as ordinary arguments. */
async function lostAck(key: (attempt: number) => string) {
  const { trajectory } = await runTrial({
    scenario: partialRefund,
    faultPlan: plan('lost', {
      kind: 'lost-ack',
      trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
    }),
    agent: () => stockAgent(stockLog(), { amountCents: 2500, key }),
    outDir: tmpOut(),
  });
  const { grades } = gradeRun(partialRefund, trajectory);
  return { trajectory, grades };
}

describe('graders read the idempotency_key argument as the key', () => {
  it('a resend under the same argument key is a keyed retry: no duplicate, nothing to recover', async () => {
    const { trajectory, grades } = await lostAck(() => 'refund-ord_1');

    expect(trajectory.ledger.filter((e) => e.tool === 'issue_refund')).toHaveLength(1);
    expect(grades.integrity.findings).toEqual([]);
    expect(grades.recovery.findings).toEqual([]);
  });

  it('a resend under another argument key is named for what it is: a changed key and a duplicate refund', async () => {
    const { grades } = await lostAck((attempt) => `refund-ord_1-${attempt}`);

    expect(grades.recovery.findings.map((f) => f.code)).toContain('retry-changed-key');
    expect(grades.integrity.findings.map((f) => f.code)).toContain('duplicate-effect');
  });
});
