import { describe, expect, it } from 'vitest';
import { parseBlueprint } from '../../runtime/blueprint.js';
import type { FailureClass } from '../../runtime/failure-class.js';
import { PlannerCallError } from '../../runtime/planner-call-error.js';
import type { Planner } from '../../runtime/planner.js';
import { ScriptedPlanner } from '../../runtime/scripted-planner.js';
import { RunStore } from '../../runtime/store.js';
import {
  ORDER,
  refundBlueprint,
  refundContract,
  refundHarness,
} from '../support/refund-harness.js';

/** The scripted plan, whose calls `failing` (1-based) throw what a model provider's would. */
function failingPlanner(failing: Record<number, () => Error>): {
  planner: Planner;
  calls: () => number;
} {
  const scripted = new ScriptedPlanner(parseBlueprint(refundBlueprint(true)));
  let calls = 0;
  return {
    planner: {
      versions: scripted.versions,
      propose: (ctx) => {
        const fail = failing[++calls];
        return fail ? Promise.reject(fail()) : scripted.propose(ctx);
      },
    },
    calls: () => calls,
  };
}

const callError = (failureClass: FailureClass, retryAfterMs?: number) => (): PlannerCallError =>
  new PlannerCallError(`model call failed (${failureClass})`, {
    failureClass,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

async function run(failing: Record<number, () => Error>, retries?: number) {
  const contract = refundContract();
  const h = refundHarness({ honourKeys: true });
  const { planner, calls } = failingPlanner(failing);
  const connection = await h.connect();
  const store = RunStore.open(h.storePath);
  const outcome = await h.runtime(connection, store, { planner }).start({
    runId: 'run-1',
    input: { order_id: ORDER },
    contract:
      retries === undefined ? contract : { ...contract, budgets: { ...contract.budgets, retries } },
    blueprint: refundBlueprint(true),
  });
  const events = store.events('run-1');
  store.close();
  await connection.close();
  return {
    outcome,
    events,
    plannerEvents: events.filter((e) => e.operationId === 'planner'),
    refunds: h.refunds(),
    virtualMs: h.clock.now(),
    calls: calls(),
  };
}

describe('a planner call that fails, routed by its failure class', () => {
  it('rate_limited: waits out the retry-after on the run clock, then asks again', async () => {
    const r = await run({ 2: callError('rate_limited', 45_000) });

    expect(r.outcome.state).toBe('completed');
    expect(r.refunds).toHaveLength(1);
    const wait = r.plannerEvents.find((e) => e.type === 'supervisor.wait');
    expect(wait).toMatchObject({ resultClass: 'rate_limited', data: { delayMs: 45_000 } });
    expect(r.virtualMs).toBeGreaterThanOrEqual(45_000);
    // Asked again after the wait, never regenerated as invalid output.
    expect(r.events.some((e) => e.type === 'planner.invalid-output')).toBe(false);
  });

  it.each(['transient', 'timeout', 'malformed_reply'] as const)(
    '%s: backs off (growing, jittered) and asks again, each retry counted',
    async (cls) => {
      const r = await run({ 1: callError(cls), 2: callError(cls), 3: callError(cls) });

      expect(r.outcome.state).toBe('completed');
      const retries = r.plannerEvents.filter((e) => e.type === 'supervisor.retry');
      expect(retries.map((e) => e.resultClass)).toEqual([cls, cls, cls]);
      const delays = retries.map((e) => e.data?.delayMs as number);
      expect(delays.every((d) => d > 0)).toBe(true);
      // Capped exponential: the third step is at least the first's full step (base 1 s → 4 s).
      expect(delays[2]).toBeGreaterThan(delays[0] ?? Infinity);
      expect(r.virtualMs).toBeGreaterThanOrEqual(delays.reduce((a, b) => a + b, 0));
    },
  );

  it('transient without end: stops when the retry budget is used up', async () => {
    const always = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [i + 1, callError('transient')]),
    );

    const r = await run(always, 3);

    expect(r.outcome).toMatchObject({ state: 'failed', stopReason: 'budget-exhausted' });
    expect(r.plannerEvents.filter((e) => e.type === 'supervisor.retry')).toHaveLength(3);
    expect(r.calls).toBe(4);
    expect(r.refunds).toHaveLength(0);
  });

  it.each(['unauthenticated', 'forbidden'] as const)(
    '%s: stops at once for a person, nothing retried',
    async (cls) => {
      const r = await run({ 2: callError(cls) });

      expect(r.outcome).toMatchObject({ state: 'blocked', stopReason: 'permission-lost' });
      expect(r.calls).toBe(2);
      expect(r.events.some((e) => e.type === 'supervisor.retry')).toBe(false);
      expect(r.refunds).toHaveLength(0);
    },
  );

  it('invalid_output: regenerated as an invalid proposal, as before', async () => {
    const r = await run({ 2: callError('invalid_output') });

    expect(r.outcome.state).toBe('completed');
    expect(r.events.filter((e) => e.type === 'planner.invalid-output')).toHaveLength(1);
    expect(r.events.some((e) => e.type === 'supervisor.retry')).toBe(false);
  });

  it('any other error a planner throws is invalid output, as before', async () => {
    const r = await run({ 2: () => new Error('the planner fell over') });

    expect(r.outcome.state).toBe('completed');
    const invalid = r.events.filter((e) => e.type === 'planner.invalid-output');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]?.reason).toMatch(/planner fell over|invalid/);
  });
});
