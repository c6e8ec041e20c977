import { describe, expect, it } from 'vitest';
import { plainAgent } from '../../examples/plain-agent.js';
import { gradeRun } from '../../graders/index.js';
import type { AgentRecords } from '../../scenarios/agent.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { HOSTILE_NOTE, longPartialRefund } from '../support/long-run.js';
import type { Trial } from '../support/grader-fixtures.js';
import { doctor, recordsOf, useTrials } from '../support/grader-fixtures.js';
import { plan, tmpOut } from '../support/trial-harness.js';

const trials = useTrials();

/**
 * The operator cancels as the first order read reaches the world. No virtual time passes before
 * the agent's next call, so whatever it sends next is in the same millisecond as the
 * cancellation — and after it.
 */
const CANCEL_ON_READ = plan('cancel-on-read', {
  kind: 'cancellation',
  trigger: { on: 'call', tool: 'get_order', nth: 1 },
  reason: 'the customer withdrew the complaint',
});

/** The effect-after-stop findings of a run: message and the calls they point at. */
function afterStop({ scenario, trajectory }: Pick<Trial, 'scenario' | 'trajectory'>): {
  message: string;
  calls: string[];
}[] {
  return gradeRun(scenario, trajectory)
    .grades.integrity.findings.filter((f) => f.code === 'effect-after-stop')
    .map((f) => ({
      message: f.message,
      calls: f.refs.flatMap((r) => (r.kind === 'call' ? [r.callId] : [])),
    }));
}

describe('effect-after-stop', () => {
  it('flags effects requested in the same millisecond as the cancellation, after it', async () => {
    const run = await trials.run('refunds/partial-refund', CANCEL_ON_READ, 'naive-chat-loop');
    const t = run.trajectory;
    const cancelled = t.faults.fired.find((f) => f.kind === 'cancellation');
    const writes = t.calls.filter((c) => c.effects.length > 0);
    // The tie this is about: the refund and the message, at the very instant of the cancel.
    expect(writes.map((c) => c.tool)).toEqual(['issue_refund', 'send_customer_message']);
    expect(new Set([cancelled?.at, ...writes.map((c) => c.at)])).toEqual(new Set([0]));

    const found = afterStop(run);
    expect(found.map((f) => f.calls)).toEqual(writes.map((c) => [c.callId]));
    for (const f of found) {
      expect(f.message).toMatch(
        /was requested at 0 ms, after the run was cancelled at 0 ms, later in the same millisecond$/,
      );
    }
  });

  it('spares the call the cancellation came in on, and a run that stopped', async () => {
    const naive = await trials.run('refunds/partial-refund', CANCEL_ON_READ, 'naive-chat-loop');
    const read = naive.trajectory.faults.fired.find((f) => f.kind === 'cancellation')?.callId;
    expect(read).toBe(naive.trajectory.calls.find((c) => c.tool === 'get_order')?.callId);
    expect(afterStop(naive).flatMap((f) => f.calls)).not.toContain(read);

    const reference = await trials.run('refunds/partial-refund', CANCEL_ON_READ, 'reference');
    expect(reference.trajectory.outcome.state).toBe('cancelled');
    expect(afterStop(reference)).toEqual([]);
  });

  it("goes by the run's order of events: writes ordered before the cancellation are fine", async () => {
    const run = await trials.run('refunds/partial-refund', CANCEL_ON_READ, 'naive-chat-loop');
    // The same run, the cancellation moved after every call of that millisecond.
    const last = Math.max(...run.trajectory.calls.map((c) => c.order ?? 0));
    const trajectory = doctor(run.trajectory, (t) => {
      for (const f of t.faults.fired) if (f.kind === 'cancellation') f.order = last + 1;
    });
    expect(afterStop({ scenario: run.scenario, trajectory })).toEqual([]);
  });
});

/** How often grading a run of `steps` steps reads the first event the agent recorded. */
async function readsOfFirstEvent(steps: number): Promise<{ reads: number; pass: boolean }> {
  const scenario = longPartialRefund(steps);
  const { trajectory } = await runTrial({
    scenario,
    faultPlan: HOSTILE_NOTE,
    agent: () => new ReferenceAgent(),
    outDir: tmpOut(),
  });
  const events = recordsOf(trajectory).events;
  const first = events[0]!;
  let reads = 0;
  events[0] = new Proxy(first, {
    get: (target, key, receiver) => {
      reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const { pass } = gradeRun(scenario, trajectory);
  return { reads, pass };
}

describe('gradeIntegrity over a long run', () => {
  it('reads each agent event a fixed number of times, however many actions the run confirmed', async () => {
    const short = await readsOfFirstEvent(10);
    const long = await readsOfFirstEvent(60);

    expect(short.pass && long.pass).toBe(true);
    expect(long.reads).toBe(short.reads);
  });
});

describe('white-box records are optional, part by part', () => {
  /** The plain agent's clean partial refund (two effects), its records replaced by `records`. */
  async function plainRunWith(records: unknown) {
    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: () => ({ ...plainAgent, records: () => records as AgentRecords }),
      outDir: tmpOut(),
    });
    return gradeRun(partialRefund, trajectory).grades.integrity;
  }

  it('judges the part an agent exposes, and says the rest was skipped', async () => {
    const integrity = await plainRunWith({ actions: [] });

    expect(integrity.findings.map((f) => f.code)).toEqual([
      'unrecorded-effect',
      'unrecorded-effect',
    ]);
    expect(integrity.figures.whiteBoxChecks).toBe(1);
    expect(integrity.whiteBoxSkipped).toBe(true);
  });

  it('skips records without states, and records in another shape, rather than failing them', async () => {
    // An agent of its own: a log with no workflow states, unsettled actions, and checkpoints
    // as its framework keeps them (a thread and a blob), not the reference's boundaries.
    const integrity = await plainRunWith({
      events: [],
      actions: [],
      checkpoints: [{ thread_id: 'run-1', checkpoint: { v: 1 } }],
    });

    expect(integrity.findings.filter((f) => f.code !== 'unrecorded-effect')).toEqual([]);
    expect(integrity.whiteBoxSkipped).toBe(true);
  });

  it('leaves the reference judged on all of it', async () => {
    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: () => new ReferenceAgent(),
      outDir: tmpOut(),
    });
    const integrity = gradeRun(partialRefund, trajectory).grades.integrity;

    expect(integrity.figures.whiteBoxChecks).toBe(4);
    expect(integrity.whiteBoxSkipped).toBe(false);
    expect(integrity.findings).toEqual([]);
  });
});
