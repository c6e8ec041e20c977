import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { faultPlanSchema } from '../../../faults/catalog.js';
import { SAFEGUARDS } from '../../../runtime/safeguards.js';
import { ReferenceAgent } from '../../../scenarios/agents/reference.js';
import { MUTANTS, ZOO, zooAgent } from '../../../scenarios/agents/zoo.js';
import { runTrial } from '../../../scenarios/engine.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';

const out = () => mkdtempSync(join(tmpdir(), 'faultline-zoo-'));

describe('the agent zoo', () => {
  it('has the reference, the naive chat loop, and exactly one mutant per safeguard', () => {
    expect(ZOO.map((a) => a.name).slice(0, 2)).toEqual(['reference', 'naive-chat-loop']);
    expect(Object.values(MUTANTS).sort()).toEqual([...SAFEGUARDS].sort());
    for (const [name, safeguard] of Object.entries(MUTANTS)) {
      const agent = zooAgent(name)!.create();
      if (!(agent instanceof ReferenceAgent))
        throw new Error(`${name} is not the reference runtime`);
      expect(agent.safeguards).toEqual({ [safeguard]: false });
      expect(agent.name).toBe(name);
    }
    expect(zooAgent('nope')).toBeUndefined();
  });
});

describe('the naive chat loop', () => {
  it('gets the fault-free job done', async () => {
    const { trajectory, asExpected } = await runTrial({
      scenario: partialRefund,
      agent: () => zooAgent('naive-chat-loop')!.create(),
      outDir: out(),
    });
    expect(trajectory.outcome.state).toBe('completed');
    expect(asExpected).toBe(true);
    // No keys, no records: nothing for white-box grading.
    expect(trajectory.calls.every((c) => c.idempotencyKey === null)).toBe(true);
    expect(trajectory.agentRecords).toBeNull();
  });

  it('sends a customer message twice when the first acknowledgement is lost', async () => {
    const plan = faultPlanSchema.parse({
      id: 'message-ack-lost',
      faults: [
        { kind: 'lost-ack', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } },
      ],
    });
    const naive = await runTrial({
      scenario: partialRefund,
      faultPlan: plan,
      agent: () => zooAgent('naive-chat-loop')!.create(),
      outDir: out(),
    });
    const reference = await runTrial({
      scenario: partialRefund,
      faultPlan: plan,
      agent: () => new ReferenceAgent(),
      outDir: out(),
    });

    const messages = (t: typeof naive.trajectory) =>
      t.ledger.filter((e) => e.tool === 'send_customer_message');
    expect(messages(naive.trajectory)).toHaveLength(2);
    expect(naive.asExpected).toBe(false);
    // The reference asks was_message_sent first and sends nothing more.
    expect(messages(reference.trajectory)).toHaveLength(1);
    expect(reference.asExpected).toBe(true);
  });
});
