import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../graders/index.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import { runTrial } from '../../scenarios/engine.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { RunTimers, VIRTUAL_EPOCH_MS, wallNow } from '../../scenarios/virtual-timers.js';
import { stockAgent, stockLog } from '../support/stock-agent.js';
import { plan, tmpOut } from '../support/trial-harness.js';

describe('RunTimers', () => {
  it('runs setTimeout, Date and performance.now on the run clock inside the run, and leaves them alone outside', async () => {
    const clock = new VirtualClock();
    const timers = new RunTimers(clock);
    const began = wallNow();

    const seen = await timers.run(async () => {
      const before = { date: Date.now(), perf: performance.now() };
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      return {
        before,
        after: { date: Date.now(), made: new Date().getTime(), perf: performance.now() },
      };
    });

    expect(clock.now()).toBe(30_000);
    expect(wallNow() - began).toBeLessThan(5_000);
    expect(seen).toEqual({
      before: { date: VIRTUAL_EPOCH_MS, perf: 0 },
      after: { date: VIRTUAL_EPOCH_MS + 30_000, made: VIRTUAL_EPOCH_MS + 30_000, perf: 30_000 },
    });
    // Outside the run: Node's own.
    expect(Math.abs(Date.now() - new Date().getTime())).toBeLessThan(1_000);
    expect(Date.now()).toBeGreaterThan(VIRTUAL_EPOCH_MS + 86_400_000);
    const real = setTimeout(() => undefined, 10);
    expect(real.constructor.name).toBe('Timeout');
    clearTimeout(real);
    expect(new Date(0).toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(new Date() instanceof Date).toBe(true);
  });

  it('fires an interval on virtual time until cleared, and clears a timeout set inside from outside', async () => {
    const clock = new VirtualClock();
    const timers = new RunTimers(clock);

    const { ticks, cancelled } = await timers
      .run(async () => {
        const ticks: number[] = [];
        let cancelled = true;
        const doomed = setTimeout(() => (cancelled = false), 5_000);
        await new Promise<void>((resolve) => {
          const every = setInterval(() => {
            ticks.push(clock.now());
            if (ticks.length === 3) {
              clearInterval(every);
              resolve();
            }
          }, 1_000);
        });
        return { ticks, cancelled, doomed };
      })
      .then(async (r) => {
        clearTimeout(r.doomed); // outside the run's context, as a reply arriving elsewhere would
        await clock.sleep(10_000);
        return r;
      });

    expect(ticks).toEqual([1_000, 2_000, 3_000]);
    expect(cancelled).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('cancels on dispose every timer the run left behind, and arms none set afterwards', async () => {
    const clock = new VirtualClock();
    const timers = new RunTimers(clock);
    let fired = 0;

    timers.run(() => {
      setInterval(() => fired++, 1_000);
      setTimeout(() => fired++, 60_000);
    });
    expect(clock.pendingTimers).toBe(2);
    timers.dispose();
    timers.run(() => setTimeout(() => fired++, 1));
    await clock.sleep(120_000);

    expect(clock.pendingTimers).toBe(0);
    expect(fired).toBe(0);
  });
});

describe('virtual time for an in-process agent, through the engine', () => {
  it('a 30 s sleep in a plain agent takes 30 s of virtual time and milliseconds of wall time', async () => {
    const log = stockLog();

    const { trajectory: t } = await runTrial({
      scenario: fullRefund,
      agent: () => stockAgent(log, { sleepMs: 30_000, approve: true }),
      outDir: tmpOut(),
    });

    expect(t.calls[0]?.at).toBe(30_000);
    expect(t.times.wallMs).toBeLessThan(5_000);
    expect(t.outcome.state).toBe('completed');
  });

  it('a dropped reply reaches a stock Client as its own request timeout after 60 s of virtual time, and the same-key resend is judged fine', async () => {
    const log = stockLog();

    const { trajectory: t } = await runTrial({
      scenario: fullRefund,
      faultPlan: plan('lost', {
        kind: 'lost-ack',
        trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
      }),
      agent: () => stockAgent(log, { key: () => 'refund-ord_1', approve: true }),
      outDir: tmpOut(),
    });

    expect(log.errors).toEqual([
      {
        code: ErrorCode.RequestTimeout,
        message: expect.stringContaining('timed out') as unknown,
        at: 60_000,
      },
    ]);
    expect(t.calls.map((c) => [c.tool, c.reply, c.idempotencyKey])).toEqual([
      ['get_order', 'delivered', null],
      ['issue_refund', 'dropped', 'refund-ord_1'],
      ['issue_refund', 'delivered', 'refund-ord_1'],
      ['send_customer_message', 'delivered', null],
    ]);
    expect(t.times.wallMs).toBeLessThan(5_000);
    expect(t.outcome.hung).toBe(false);
    const { grades, pass } = gradeRun(fullRefund, t);
    expect(pass).toBe(true);
    expect(grades.integrity.findings).toEqual([]);
    expect(grades.recovery.findings).toEqual([]);
  });

  it("leaves an agent that reads time from run.clock (exposes.clock) on Node's own timers", async () => {
    let kind = '';
    const agent: AgentUnderTest = {
      name: 'clocked',
      exposes: { clock: true },
      start: () =>
        new Promise((resolve) => {
          const timer = setTimeout(() => {
            resolve({ status: 'completed' });
          }, 1);
          kind = timer.constructor.name;
        }),
    };

    const { trajectory: t } = await runTrial({
      scenario: partialRefund,
      agent: () => agent,
      outDir: tmpOut(),
    });

    expect(kind).toBe('Timeout');
    expect(t.outcome.state).toBe('completed');
  });

  it('still reports an agent stuck on a promise nothing settles as hung', async () => {
    const log = stockLog();

    const { trajectory: t } = await runTrial({
      scenario: fullRefund,
      agent: () => stockAgent(log, { sleepMs: 1_000, hang: true, approve: true }),
      // An agent that finished its work and then waits on nothing: reported hung all the same.
      outDir: tmpOut(),
      wallLimitMs: 20_000,
    });

    expect(t.outcome).toMatchObject({ state: 'hung', hung: true });
    expect(t.outcome.detail).toContain('stopped making progress');
  });
});
