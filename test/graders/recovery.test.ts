import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../graders/index.js';
import type { WireCallRecord } from '../../scenarios/trajectory.js';
import { doctor, useTrials } from '../support/grader-fixtures.js';

const trials = useTrials();

/** The world's own refusals in a run: failed calls no fault of the plan touched. */
function ownRefusals(calls: readonly WireCallRecord[], cls: string): WireCallRecord[] {
  return calls.filter(
    (c) => c.fault === null && c.outcome.type === 'fail' && c.outcome.class === cls,
  );
}

// tickets/sla-queue asks for four assignments; the routing API takes three a minute, so the
// fourth meets the world's own rate limit — no fault plan involved.
describe("recovery judges the world's own refusals as faults", () => {
  it('fails an agent that hammers the rate limit on recovery, not only on the outcome', async () => {
    const { scenario, trajectory } = await trials.run('tickets/sla-queue', 'none', 'blind-retry');
    const refused = ownRefusals(trajectory.calls, 'rate_limited');
    expect(refused.length).toBeGreaterThan(1);
    expect(refused[0]?.outcome).toEqual({
      type: 'fail',
      class: 'rate_limited',
      retryAfterMs: expect.any(Number) as number,
    });

    const { grades } = gradeRun(scenario, trajectory);
    expect(grades.outcome.pass).toBe(false);
    expect(grades.recovery.pass).toBe(false);
    expect(grades.recovery.figures.worldRefusals).toBe(refused.length);
    const [ignored, ...others] = grades.recovery.findings;
    expect(others).toEqual([]);
    expect(ignored?.code).toBe('rate-limit-ignored');
    expect(ignored?.message).toMatch(
      /^assign_ticket called again 0 ms after the world's own rate limit asked for \d+ ms; the same \d+ more time\(s\)$/,
    );
    // It points at the refusal and the call that came too soon, not at any fault of a plan.
    expect(ignored?.refs.slice(0, 2)).toEqual([
      { kind: 'call', callId: refused[0]?.callId },
      { kind: 'call', callId: expect.any(String) as string },
    ]);
    expect(ignored?.refs.some((r) => r.kind === 'fault')).toBe(false);
  });

  it('passes the reference, which waits out the retry-after the world gave', async () => {
    const { scenario, trajectory } = await trials.run('tickets/sla-queue', 'none', 'reference');
    const [refused] = ownRefusals(trajectory.calls, 'rate_limited');
    expect(refused).toBeDefined();
    const wait = refused?.outcome.type === 'fail' ? (refused.outcome.retryAfterMs ?? 0) : 0;
    const next = trajectory.calls.find(
      (c) => c.tool === 'assign_ticket' && (c.order ?? 0) > (refused?.order ?? 0),
    );
    expect(next?.at).toBeGreaterThanOrEqual((refused?.at ?? 0) + wait);

    const { grades, pass } = gradeRun(scenario, trajectory);
    expect(pass).toBe(true);
    expect(grades.recovery.figures.worldRefusals).toBe(1);
  });

  it("holds a world's own transient failure to a backoff with the same key", async () => {
    const { scenario, trajectory } = await trials.run('tickets/sla-queue', 'none', 'reference');
    const assignments = trajectory.calls.filter((c) => c.tool === 'assign_ticket');
    const [first, second] = assignments;
    if (!first || !second) throw new Error('expected two assignments');
    // The world itself answers the first assignment `transient`; the agent resends it at once
    // under another key.
    const doctored = doctor(trajectory, (t) => {
      const hit = t.calls.find((c) => c.callId === first.callId)!;
      const again = t.calls.find((c) => c.callId === second.callId)!;
      hit.outcome = { type: 'fail', class: 'transient' };
      hit.effects = [];
      again.args = hit.args;
      again.at = hit.at;
      again.idempotencyKey = `${hit.idempotencyKey ?? ''}-other`;
    });
    const { grades } = gradeRun(scenario, doctored);
    expect(grades.recovery.findings.map((f) => [f.code, f.message])).toEqual([
      [
        'retry-without-backoff',
        `assign_ticket failed transiently and was retried at once (t=${first.at} ms) (a refusal of the world itself)`,
      ],
      ['retry-changed-key', 'assign_ticket was retried under a different idempotency key'],
    ]);
  });
});

describe('faults not applicable to the agent', () => {
  it('are neither exercised nor missed: no finding, no check, a figure', async () => {
    const { scenario, trajectory } = await trials.run(
      'refunds/partial-refund',
      'crash-after-apply',
      'reference',
    );
    const { grades: asRun } = gradeRun(scenario, trajectory);
    expect(asRun.recovery.figures).toMatchObject({ faults: 1, fired: 1, notApplicable: 0 });

    // The same plan, its crash never fired: missed, unless it could not reach the agent.
    const missed = doctor(trajectory, (t) => {
      t.faults.fired = [];
      t.crashes = [];
    });
    const skipped = doctor(missed, (t) => {
      t.faults.notApplicable = [{ index: 0, kind: 'crash', reason: 'the agent reports no probes' }];
    });
    expect(gradeRun(scenario, missed).grades.recovery.findings.map((f) => f.code)).toContain(
      'fault-not-exercised',
    );
    const { grades } = gradeRun(scenario, skipped);
    expect(grades.recovery.findings).toEqual([]);
    expect(grades.recovery.figures).toMatchObject({ faults: 0, fired: 0, notApplicable: 1 });
  });
});
