import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gradeRun } from '../../../graders/index.js';
import { ReferenceAgent } from '../../../scenarios/agents/reference.js';
import { zooAgent } from '../../../scenarios/agents/zoo.js';
import { runTrial } from '../../../scenarios/engine.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import type { RecordedWorldState } from '../../../scenarios/world/recorded-world.js';
import { onRecording, recordRun, type RecordedRun } from '../../support/recorded-runs.js';

let dir: string;
/** The reference on refunds/partial-refund, no fault. */
let clean: RecordedRun;
/** The same with the refund's acknowledgement lost: the call is recorded unanswered. */
let ackLost: RecordedRun;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-recorded-world-'));
  clean = await recordRun(partialRefund, new ReferenceAgent(), dir, { name: 'clean' });
  const lostAck = partialRefund.faultPlans.find((p) => p.id === 'refund-ack-lost');
  ackLost = await recordRun(partialRefund, new ReferenceAgent(), dir, {
    name: 'ack-lost',
    ...(lostAck ? { plan: lostAck } : {}),
  });
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mutant = (name: string) => {
  const entry = zooAgent(name);
  if (!entry) throw new Error(`no mutant ${name}`);
  return entry.create();
};

describe('a recorded world, matched in sequence', () => {
  it('is followed to its end by the agent that recorded it', async () => {
    expect(clean.live.asExpected).toBe(true);
    const scenario = onRecording(partialRefund, clean.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => new ReferenceAgent(), outDir: dir });
    const world = run.trajectory.world.end as RecordedWorldState;
    expect(world.divergence).toBeNull();
    expect(world.remaining).toBe(0);
    expect(world.served).toBe(clean.cassette.interactions.length);
    expect(run.trajectory.replay).toMatchObject({
      match: 'sequence',
      remaining: 0,
      divergence: null,
    });
    expect(run.mismatches).toEqual([]);
    expect(run.trajectory.outcome.state).toBe('completed');
    const { pass, grades } = gradeRun(scenario, run.trajectory);
    expect(grades.outcome.findings).toEqual([]);
    expect(pass).toBe(true);
  });

  it('ends the run at the first call off the recording, and the finding names step, expected and actual call', async () => {
    // fresh-read off: the mutant refunds without reading the order again first.
    const scenario = onRecording(partialRefund, clean.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => mutant('stale-write'), outDir: dir });
    const divergence = (run.trajectory.world.end as RecordedWorldState).divergence;
    expect(divergence).toMatchObject({
      step: 2,
      expected: { tool: 'get_order', arguments: { order_id: 'ord_4' }, recordedStep: 2 },
      actual: { tool: 'issue_refund', arguments: { order_id: 'ord_4', amount_cents: 2500 } },
    });
    expect(divergence?.message).toBe(
      'replay divergence at step 2: expected get_order {"order_id":"ord_4"}, got issue_refund {"amount_cents":2500,"order_id":"ord_4","reason":"late delivery goodwill"}',
    );
    // Nothing after the divergence reached the world: the run ended there.
    expect(run.trajectory.calls).toHaveLength(2);
    expect(run.trajectory.ledger).toEqual([]);
    const { pass, grades } = gradeRun(scenario, run.trajectory);
    const found = grades.outcome.findings.find((f) => f.code === 'replay-divergence');
    expect(found?.message).toBe(divergence?.message);
    expect(found?.refs).toEqual([{ kind: 'call', callId: run.trajectory.calls[1]?.callId }]);
    expect(grades['tool-use'].findings).toEqual([]);
    expect(pass).toBe(false);
  });

  it('withholds the reply of a call recorded unanswered, and the reference recovers as it did live', async () => {
    const lost = ackLost.cassette.interactions.filter(
      (i) => i.kind === 'tool' && i.unanswered !== undefined,
    );
    expect(lost.map((i) => i.kind === 'tool' && i.tool)).toEqual(['issue_refund']);
    const scenario = onRecording(partialRefund, ackLost.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => new ReferenceAgent(), outDir: dir });
    const refunds = run.trajectory.calls.filter((c) => c.tool === 'issue_refund');
    expect(refunds.map((c) => c.reply)).toEqual(['dropped', 'delivered']);
    expect(refunds[0]?.outcome).toEqual({ type: 'info', reason: 'lost' });
    expect(refunds[1]?.idempotencyKey).toBe(refunds[0]?.idempotencyKey);
    // As live: one effect, the resend under the same key answered and not applied again.
    expect(run.trajectory.ledger).toHaveLength(2);
    expect(run.trajectory.replay).toMatchObject({ remaining: 0, divergence: null });
    expect(gradeRun(scenario, run.trajectory).pass).toBe(true);
  });

  it('is left by a mutant that reconciles where the recording resent under its key', async () => {
    const scenario = onRecording(partialRefund, ackLost.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => mutant('no-idempotency'), outDir: dir });
    const divergence = run.trajectory.replay?.divergence;
    const refundStep = ackLost.cassette.interactions.findIndex(
      (i) => i.kind === 'tool' && i.tool === 'issue_refund',
    );
    expect(divergence).toMatchObject({
      step: refundStep + 2,
      expected: { tool: 'issue_refund' },
      actual: { tool: 'list_refunds', arguments: { order_id: 'ord_4' } },
    });
    expect(gradeRun(scenario, run.trajectory).grades.outcome.findings.map((f) => f.code)).toContain(
      'replay-divergence',
    );
  });
});
