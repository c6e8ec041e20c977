import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WireAction, WireDecider } from '../../faults/wire-transport.js';
import { InvalidInputError } from '../../runtime/errors.js';
import type { Operator, OperatorCommand } from '../../runtime/operator.js';
import type { Planner } from '../../runtime/planner.js';
import { META } from '../../runtime/protocol.js';
import { RunStore } from '../../runtime/store.js';
import { ScriptedPlanner } from '../../runtime/scripted-planner.js';
import { parseBlueprint, type BlueprintInput } from '../../runtime/blueprint.js';
import type { CrashProbe } from '../../runtime/crash-probe.js';
import type { Safeguards } from '../../runtime/safeguards.js';
import { idempotencyKey } from '../../runtime/idempotency-key.js';
import {
  type Harness,
  freezeAt,
  ORDER,
  refundBlueprint,
  refundContract,
  refundHarness,
} from '../support/refund-harness.js';

/** A typed error result, as a world (or the fault layer standing in for it) sends one. */
function errorResult(cls: string, message: string, retryAfterMs?: number): Record<string, unknown> {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    _meta: {
      [META.error]:
        retryAfterMs === undefined
          ? { class: cls, message }
          : { class: cls, message, retryAfterMs },
    },
  };
}

/** Nth call of a tool (1-based) gets `action`; everything else passes. */
function onCall(tool: string, n: number, action: WireAction): WireDecider {
  return (call) => (call.tool === tool && call.toolCall === n ? action : undefined);
}

/**
 * Starts run-1 and crashes it in-process at `probe` of the refund: the instance is abandoned,
 * its store handle and connection closed, as the engine does.
 */
async function crashAt(
  h: Harness,
  probe: CrashProbe,
  blueprint: BlueprintInput,
  safeguards: Partial<Safeguards> = {},
): Promise<void> {
  const connection = await h.connect();
  const store = RunStore.open(h.storePath);
  const crash = freezeAt(probe, 'refund');
  void h
    .runtime(connection, store, { probe: crash.handler, safeguards })
    .start({ runId: 'run-1', input: { order_id: ORDER }, contract: refundContract(), blueprint });
  await crash.reached;
  store.close();
  await connection.close();
}

describe('resume after the store closes mid-run', () => {
  it('completes without resending a confirmed write, even where the provider ignores keys', async () => {
    const h = refundHarness({ honourKeys: false });
    await crashAt(h, 'after-result-saved', refundBlueprint(false));

    const second = await h.connect();
    const store2 = RunStore.open(h.storePath);
    const outcome = await h.runtime(second, store2).resume('run-1');

    expect(outcome.state).toBe('completed');
    expect(h.refunds()).toHaveLength(1);
    const refundKeys = h
      .calls()
      .filter((c) => c.tool === 'issue_refund')
      .map((c) => c.idempotencyKey);
    expect(refundKeys).toHaveLength(1);
    const resumedCalls = h.wire[1]!.calls;
    expect(resumedCalls.some((c) => c.tool === 'issue_refund')).toBe(false);
    expect(resumedCalls.some((c) => c.tool === 'send_customer_message')).toBe(true);
    expect(h.world.ledger.entries().filter((e) => e.tool === 'send_customer_message')).toHaveLength(
      1,
    );
    expect(store2.events('run-1').some((e) => e.type === 'run.resumed')).toBe(true);
    store2.close();
    await second.close();
  });

  it('reconciles a write found intended on resume before anything else (crash after the world applied it)', async () => {
    const h = refundHarness({ honourKeys: false });
    // The write reaches the world; the runtime dies before it saves the result.
    await crashAt(h, 'before-result-saved', refundBlueprint(false));
    expect(h.refunds()).toHaveLength(1);

    const second = await h.connect();
    const store2 = RunStore.open(h.storePath);
    const outcome = await h.runtime(second, store2).resume('run-1');

    expect(outcome.state).toBe('completed');
    expect(h.refunds()).toHaveLength(1);
    expect(h.wire[1]!.calls.filter((c) => c.tool === 'issue_refund')).toHaveLength(0);
    expect(h.wire[1]!.calls[0]!.tool).toBe('list_refunds');
    expect(store2.actions('run-1').find((a) => a.operationId === 'refund')?.status).toBe(
      'reconciled',
    );
    store2.close();
    await second.close();
  });

  it('without checkpoints starts over and repeats the confirmed write (the no-checkpoint flaw)', async () => {
    const h = refundHarness({ honourKeys: false });
    await crashAt(h, 'after-result-saved', refundBlueprint(false), { checkpoint: false });

    const second = await h.connect();
    const store2 = RunStore.open(h.storePath);
    await h.runtime(second, store2, { safeguards: { checkpoint: false } }).resume('run-1');

    expect(h.refunds()).toHaveLength(2);
    expect(h.world.ledger.duplicates().length).toBeGreaterThan(0);
    store2.close();
    await second.close();
  });

  it('replans when a version changed, recording the reason', async () => {
    const h = refundHarness({ honourKeys: true });
    await crashAt(h, 'after-result-saved', refundBlueprint(true));

    const second = await h.connect();
    const store2 = RunStore.open(h.storePath);
    const outcome = await h
      .runtime(second, store2)
      .resume('run-1', { blueprint: refundBlueprint(true, '2') });

    expect(outcome.state).toBe('completed');
    const replan = store2.events('run-1').find((e) => e.type === 'plan.replanned');
    expect(replan?.reason).toContain('blueprint 1 → 2');
    expect(store2.plans('run-1').at(-1)?.reason).toContain('blueprint 1 → 2');
    expect(h.refunds()).toHaveLength(1);
    store2.close();
    await second.close();
  });
});

describe('an ambiguous write (reply lost after the world applied it)', () => {
  const lostFirstRefund = (call: { tool: string; toolCall: number }) =>
    call.tool === 'issue_refund' && call.toolCall === 1
      ? ({ kind: 'drop-reply', fault: 'lost-ack' } as const)
      : undefined;

  it('is reconciled by query where the provider ignores keys, not sent again', async () => {
    const h = refundHarness({ honourKeys: false });
    const connection = await h.connect(lostFirstRefund);
    const store = RunStore.open(h.storePath);
    const outcome = await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(false),
    });

    expect(outcome.state).toBe('completed');
    expect(h.refunds()).toHaveLength(1);
    const refundCalls = h.calls().filter((c) => c.tool === 'issue_refund');
    expect(refundCalls).toHaveLength(1);
    expect(refundCalls[0]!.reply).toBe('dropped');
    const afterLoss = h.calls().slice(h.calls().indexOf(refundCalls[0]!) + 1);
    expect(afterLoss[0]!.tool).toBe('list_refunds');
    // The timeout ran on the virtual clock.
    expect(h.clock.now()).toBeGreaterThanOrEqual(30_000);
    store.close();
    await connection.close();
  });

  it('with reconcile switched off, is blindly resent and the ledger shows a duplicate refund', async () => {
    const h = refundHarness({ honourKeys: false });
    const connection = await h.connect(lostFirstRefund);
    const store = RunStore.open(h.storePath);
    await h.runtime(connection, store, { safeguards: { reconcile: false } }).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(false),
    });

    expect(h.refunds()).toHaveLength(2);
    expect(h.world.ledger.duplicates()).toEqual([
      expect.objectContaining({ identity: `refund:${ORDER}:2500` }),
    ]);
    store.close();
    await connection.close();
  });

  it('is resent with the same key where the provider honours keys, and the world applies it once', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect(lostFirstRefund);
    const store = RunStore.open(h.storePath);
    const outcome = await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(true),
    });

    expect(outcome.state).toBe('completed');
    const refundCalls = h.calls().filter((c) => c.tool === 'issue_refund');
    expect(refundCalls).toHaveLength(2);
    expect(refundCalls[0]!.idempotencyKey).toBe(refundCalls[1]!.idempotencyKey);
    expect(h.refunds()).toHaveLength(1);
    expect(store.actions('run-1').find((a) => a.operationId === 'refund')?.status).toBe(
      'reconciled',
    );
    store.close();
    await connection.close();
  });

  it('treats a garbled reply to a write as ambiguous: reconciled, never blindly resent', async () => {
    const h = refundHarness({ honourKeys: false });
    const connection = await h.connect((call) =>
      call.tool === 'issue_refund' && call.toolCall === 1
        ? {
            kind: 'rewrite-reply',
            fault: 'malformed-reply',
            rewrite: () => ({
              content: [{ type: 'text', text: '{}' }],
              structuredContent: { garbled: true },
            }),
          }
        : undefined,
    );
    const store = RunStore.open(h.storePath);
    const outcome = await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(false),
    });

    expect(outcome.state).toBe('completed');
    expect(h.refunds()).toHaveLength(1);
    expect(h.calls().filter((c) => c.tool === 'issue_refund')).toHaveLength(1);
    expect(store.actions('run-1').find((a) => a.operationId === 'refund')?.status).toBe(
      'reconciled',
    );
    store.close();
    await connection.close();
  });

  it('goes to a person when it can be neither deduplicated nor reconciled', async () => {
    const h = refundHarness({ honourKeys: false });
    const connection = await h.connect((call) =>
      call.tool === 'send_customer_message' ? { kind: 'drop-reply', fault: 'lost-ack' } : undefined,
    );
    const store = RunStore.open(h.storePath);
    // A copy without the reconcile read: the operation itself is the refunds library's, which
    // every later test file in this worker runs (deleting from it once failed their runs).
    const base = refundBlueprint(false);
    const { reconcile: _reconcile, ...notify } = base.operations[2]!;
    const blueprint = { ...base, operations: [base.operations[0]!, base.operations[1]!, notify] };
    const outcome = await h
      .runtime(connection, store)
      .start({ runId: 'run-1', input: { order_id: ORDER }, contract: refundContract(), blueprint });

    expect(outcome).toMatchObject({ state: 'blocked', stopReason: 'ambiguous-unresolvable' });
    expect(h.calls().filter((c) => c.tool === 'send_customer_message')).toHaveLength(1);
    store.close();
    await connection.close();
  });
});

describe('the supervisor, by failure class (asserted on the wire and the ledger)', () => {
  async function runWith(decide: WireDecider, extra: { planner?: Planner } = {}) {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect(decide);
    const store = RunStore.open(h.storePath);
    const outcome = await h.runtime(connection, store, extra).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(true),
    });
    const result = {
      h,
      outcome,
      events: store.events('run-1'),
      refundCalls: h.calls().filter((c) => c.tool === 'issue_refund'),
    };
    store.close();
    await connection.close();
    return result;
  }

  it('transient: retries with the same key after a backoff', async () => {
    const { h, outcome, refundCalls } = await runWith(
      onCall('issue_refund', 1, {
        kind: 'respond',
        fault: 'transient',
        result: errorResult('transient', 'try again'),
      }),
    );
    expect(outcome.state).toBe('completed');
    expect(refundCalls).toHaveLength(2);
    expect(refundCalls[1]!.idempotencyKey).toBe(refundCalls[0]!.idempotencyKey);
    expect(h.clock.now()).toBeGreaterThanOrEqual(500);
    expect(h.refunds()).toHaveLength(1);
  });

  it('rate-limited: waits out the retry-after before calling again', async () => {
    const { h, outcome, refundCalls, events } = await runWith(
      onCall('issue_refund', 1, {
        kind: 'respond',
        fault: 'rate-limit',
        result: errorResult('rate_limited', 'slow down', 90_000),
      }),
    );
    expect(outcome.state).toBe('completed');
    expect(refundCalls).toHaveLength(2);
    expect(h.clock.now()).toBeGreaterThanOrEqual(90_000);
    expect(events.some((e) => e.type === 'supervisor.wait' && e.toState === 'waiting')).toBe(true);
  });

  it('forbidden: stops and escalates without retrying', async () => {
    const { h, outcome, refundCalls } = await runWith(
      onCall('issue_refund', 1, {
        kind: 'respond',
        fault: 'revoked-permission',
        result: errorResult('forbidden', 'revoked'),
      }),
    );
    expect(outcome).toMatchObject({ state: 'blocked', stopReason: 'permission-lost' });
    expect(refundCalls).toHaveLength(1);
    expect(h.world.ledger.entries()).toHaveLength(0);
  });

  it('forbidden on a precondition’s read: stops as permission-lost, never replans against state it cannot see', async () => {
    // get_order #1 is the order read; #2 is the refund's fresh precondition read.
    const { h, outcome, refundCalls, events } = await runWith(
      onCall('get_order', 2, {
        kind: 'respond',
        fault: 'revoked-permission',
        result: errorResult('forbidden', 'revoked'),
      }),
    );
    expect(outcome).toMatchObject({ state: 'blocked', stopReason: 'permission-lost' });
    expect(h.calls().filter((c) => c.tool === 'get_order')).toHaveLength(2);
    expect(refundCalls).toHaveLength(0);
    expect(events.some((e) => e.type === 'plan.replanned')).toBe(false);
  });

  it('forbidden, with revocation-stop off: keeps calling (the retry storm the safeguard prevents)', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect((call) =>
      call.tool === 'issue_refund'
        ? {
            kind: 'respond',
            fault: 'revoked-permission',
            result: errorResult('forbidden', 'revoked'),
          }
        : undefined,
    );
    const store = RunStore.open(h.storePath);
    const outcome = await h
      .runtime(connection, store, { safeguards: { 'revocation-stop': false } })
      .start({
        runId: 'run-1',
        input: { order_id: ORDER },
        contract: refundContract(),
        blueprint: refundBlueprint(true),
      });
    expect(outcome.stopReason).toBe('budget-exhausted');
    expect(h.calls().filter((c) => c.tool === 'issue_refund').length).toBeGreaterThan(3);
    store.close();
    await connection.close();
  });

  it('precondition failed: refreshes what the write depends on and replans', async () => {
    const { outcome, events, h } = await runWith(
      onCall('issue_refund', 1, {
        kind: 'respond',
        fault: 'stale-record',
        result: errorResult('precondition_failed', 'order changed'),
      }),
    );
    expect(outcome.state).toBe('completed');
    expect(
      events.some((e) => e.type === 'plan.replanned' && (e.reason ?? '').includes('precondition')),
    ).toBe(true);
    const orderReads = h.calls().filter((c) => c.tool === 'get_order');
    expect(orderReads.length).toBeGreaterThanOrEqual(3);
    expect(h.refunds()).toHaveLength(1);
  });

  it('invalid planner output: regenerates when nothing has happened yet', async () => {
    const h = refundHarness({ honourKeys: true });
    const scripted = new ScriptedPlanner(parseBlueprint(refundBlueprint(true)));
    let calls = 0;
    const flaky: Planner = {
      versions: scripted.versions,
      propose: (ctx) =>
        ++calls === 2
          ? Promise.resolve({ proposal: { kind: 'act', tool: 42 } })
          : scripted.propose(ctx),
    };
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const outcome = await h.runtime(connection, store, { planner: flaky }).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(true),
    });
    expect(outcome.state).toBe('completed');
    expect(store.events('run-1').filter((e) => e.type === 'planner.invalid-output')).toHaveLength(
      1,
    );
    expect(h.refunds()).toHaveLength(1);
    store.close();
    await connection.close();
  });

  it('invalid planner output: still caught when the built-in planner is decorated', async () => {
    const h = refundHarness({ honourKeys: true });
    let calls = 0;
    // The runtime's own scripted planner, wrapped (as a harness injects model faults).
    const garbleSecond = (inner: Planner): Planner => ({
      versions: inner.versions,
      propose: (ctx) =>
        ++calls === 2
          ? Promise.resolve({ proposal: { kind: 'act', tool: 42 } })
          : inner.propose(ctx),
    });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const outcome = await h.runtime(connection, store, { decoratePlanner: garbleSecond }).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(true),
    });
    expect(outcome.state).toBe('completed');
    const invalid = store.events('run-1').filter((e) => e.type === 'planner.invalid-output');
    expect(invalid).toHaveLength(1);
    expect(invalid[0]?.resultClass).toBe('invalid_output');
    expect(h.refunds()).toHaveLength(1);
    store.close();
    await connection.close();
  });

  it('budget exhausted: stops with the reason, before the call that would exceed it', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const contract = refundContract({
      budgets: { toolCalls: 40, retries: 8, externalWrites: 1, virtualTimeMs: 3_600_000 },
    });
    const outcome = await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract,
      blueprint: refundBlueprint(true),
    });
    expect(outcome.stopReason).toBe('budget-exhausted');
    expect(h.calls().filter((c) => c.tool === 'send_customer_message')).toHaveLength(0);
    expect(h.refunds()).toHaveLength(1);
    const denial = store.events('run-1').find((e) => e.type === 'policy.denied');
    expect(denial?.policyRule).toBe('budget.external-writes');
    store.close();
    await connection.close();
  });
});

describe('a crash while the run waits', () => {
  /** Grants every approval after `afterMs`, minting a single-use token in the world. */
  function grantingOperator(h: Harness, asked: string[], afterMs = 0): Operator {
    return {
      requestApproval: async (request) => {
        asked.push(request.operationId);
        if (afterMs > 0) await h.clock.sleep(afterMs);
        const identity =
          h.world.approvalIdentity(request.tool, request.args) ??
          `${request.tool}:${request.actionId}`;
        const { token } = h.world.approvals.grant({
          runId: request.runId,
          tool: request.tool,
          identity,
          approver: 'lead',
        });
        return { decision: 'granted', approver: 'lead', token, at: h.clock.now() };
      },
      poll: () => undefined,
      nextCommand: () => Promise.resolve({ kind: 'resume' }),
    };
  }

  /** Notes when (virtual time) each issue_refund reaches the wire, then lets `decide` act. */
  function timed(h: Harness, sent: number[], decide?: WireDecider): WireDecider {
    return (call) => {
      if (call.tool === 'issue_refund') sent.push(h.clock.now());
      return decide?.(call);
    };
  }

  /** Runs run-1 until it freezes at `probe` of the refund, then closes store and connection. */
  async function crashWhileWaiting(
    h: Harness,
    probe: CrashProbe,
    options: { decide?: WireDecider; operator?: Operator; supervised?: boolean } = {},
  ): Promise<void> {
    const connection = await h.connect(options.decide);
    const store = RunStore.open(h.storePath);
    const crash = freezeAt(probe, 'refund');
    void h
      .runtime(connection, store, {
        probe: crash.handler,
        ...(options.operator ? { operator: options.operator } : {}),
      })
      .start({
        runId: 'run-1',
        input: { order_id: ORDER },
        contract: refundContract(options.supervised ? { autonomy: 'supervised' } : {}),
        blueprint: refundBlueprint(true),
      });
    await crash.reached;
    store.close();
    await connection.close();
  }

  async function resume(h: Harness, operator?: Operator, decide?: WireDecider) {
    const connection = await h.connect(decide);
    const store = RunStore.open(h.storePath);
    const outcome = await h
      .runtime(connection, store, operator ? { operator } : {})
      .resume('run-1');
    const records = {
      events: store.events('run-1'),
      approvals: store.approvals('run-1'),
      used: store.getRun('run-1')?.used,
    };
    store.close();
    await connection.close();
    return { outcome, ...records };
  }

  it('for an approval: the resume asks again and sends the write once, with its key and the new token', async () => {
    const h = refundHarness({ honourKeys: true });
    const asked: string[] = [];
    const operator = grantingOperator(h, asked, 60_000);
    await crashWhileWaiting(h, 'awaiting-approval', { operator, supervised: true });
    expect(h.calls().map((c) => c.tool)).toEqual(['get_order']);

    const { outcome, events, approvals } = await resume(h, operator);

    expect(outcome).toMatchObject({ state: 'completed', stopReason: null });
    // Nothing was sent before the crash: nothing to reconcile, and the approval asked again.
    expect(events.some((e) => e.type === 'action.ambiguous')).toBe(false);
    expect(asked).toEqual(['refund', 'notify']);
    expect(
      events.filter((e) => e.type === 'approval.requested' && e.operationId === 'refund'),
    ).toHaveLength(2);
    const refunds = h.calls().filter((c) => c.tool === 'issue_refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.idempotencyKey).toBe(idempotencyKey('run-1', 'refund'));
    const granted = h.world.approvals.records().find((a) => a.tool === 'issue_refund');
    expect(refunds[0]!.approvalToken).toBe(granted?.token);
    expect(h.refunds()).toHaveLength(1);
    expect(approvals.map((a) => a.status)).toEqual(['consumed', 'consumed']);
  });

  it('after the approval came: the resume uses the granted approval, unspent, and asks nobody again', async () => {
    const h = refundHarness({ honourKeys: true });
    const asked: string[] = [];
    const operator = grantingOperator(h, asked);
    // get_order #2 is the refund's fresh precondition read, after the approval was granted.
    await crashWhileWaiting(h, 'awaiting-backoff', {
      operator,
      supervised: true,
      decide: onCall('get_order', 2, {
        kind: 'respond',
        fault: 'transient',
        result: errorResult('transient', 'try again'),
      }),
    });
    expect(asked).toEqual(['refund']);
    expect(h.calls().some((c) => c.tool === 'issue_refund')).toBe(false);

    const { outcome, events, approvals } = await resume(h, operator);

    expect(outcome).toMatchObject({ state: 'completed', stopReason: null });
    expect(asked).toEqual(['refund', 'notify']);
    expect(events.some((e) => e.type === 'action.ambiguous')).toBe(false);
    const refunds = h.calls().filter((c) => c.tool === 'issue_refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.idempotencyKey).toBe(idempotencyKey('run-1', 'refund'));
    const granted = h.world.approvals.records().filter((a) => a.tool === 'issue_refund');
    expect(granted).toHaveLength(1);
    expect(refunds[0]!.approvalToken).toBe(granted[0]!.token);
    expect(approvals.map((a) => a.status)).toEqual(['consumed', 'consumed']);
  });

  it('out a backoff: the resume waits out the rest and resends under the same key', async () => {
    const h = refundHarness({ honourKeys: true });
    const sent: number[] = [];
    await crashWhileWaiting(h, 'awaiting-backoff', {
      decide: timed(
        h,
        sent,
        onCall('issue_refund', 1, {
          kind: 'respond',
          fault: 'transient',
          result: errorResult('transient', 'try again'),
        }),
      ),
    });
    const [failed] = h.calls().filter((c) => c.tool === 'issue_refund');
    const backoff = RunStore.open(h.storePath);
    const wait = backoff.events('run-1').findLast((e) => e.type === 'supervisor.retry');
    backoff.close();
    const delayMs = (wait?.data as { delayMs: number }).delayMs;
    expect(delayMs).toBeGreaterThan(0);

    const { outcome, used } = await resume(h, undefined, timed(h, sent));

    expect(outcome).toMatchObject({ state: 'completed', stopReason: null });
    const refunds = h.calls().filter((c) => c.tool === 'issue_refund');
    expect(refunds).toHaveLength(2);
    expect(refunds[1]!.idempotencyKey).toBe(failed!.idempotencyKey);
    expect(sent[1]!).toBeGreaterThanOrEqual(sent[0]! + delayMs);
    // The failed send was counted when its outcome was saved: the resume does not count it again.
    const reads = new Set(['get_order', 'list_refunds', 'was_message_sent']);
    const writes = h.calls().filter((c) => !reads.has(c.tool));
    expect(used).toMatchObject({ toolCalls: h.calls().length, externalWrites: writes.length });
    expect(h.refunds()).toHaveLength(1);
  });

  it('out a retry-after: the resume waits out the rest before calling again', async () => {
    const h = refundHarness({ honourKeys: true });
    const sent: number[] = [];
    await crashWhileWaiting(h, 'awaiting-retry-after', {
      decide: timed(
        h,
        sent,
        onCall('issue_refund', 1, {
          kind: 'respond',
          fault: 'rate-limit',
          result: errorResult('rate_limited', 'slow down', 90_000),
        }),
      ),
    });
    const [limited] = h.calls().filter((c) => c.tool === 'issue_refund');

    const { outcome } = await resume(h, undefined, timed(h, sent));

    expect(outcome).toMatchObject({ state: 'completed', stopReason: null });
    const refunds = h.calls().filter((c) => c.tool === 'issue_refund');
    expect(refunds).toHaveLength(2);
    expect(refunds[1]!.idempotencyKey).toBe(limited!.idempotencyKey);
    expect(sent[1]!).toBeGreaterThanOrEqual(sent[0]! + 90_000);
    expect(h.refunds()).toHaveLength(1);
  });
});

describe('stop reasons', () => {
  it('a blocked run that is resumed and completes reports no stop reason, live or read back', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect(
      onCall('issue_refund', 1, {
        kind: 'respond',
        fault: 'revoked-permission',
        result: errorResult('forbidden', 'revoked'),
      }),
    );
    const store = RunStore.open(h.storePath);
    const blocked = await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(true),
    });
    expect(blocked).toMatchObject({ state: 'blocked', stopReason: 'permission-lost' });
    store.close();
    await connection.close();

    // A person restored the permission (the refusal was the wire's alone) and resumes the run.
    const second = await h.connect();
    const store2 = RunStore.open(h.storePath);
    const outcome = await h.runtime(second, store2).resume('run-1');

    expect(outcome).toEqual({ runId: 'run-1', state: 'completed', stopReason: null, detail: null });
    expect(store2.getRun('run-1')).toMatchObject({ state: 'completed', stopReason: null });
    store2.close();
    await second.close();
    const reopened = RunStore.open(h.storePath);
    expect(reopened.getRun('run-1')).toMatchObject({ stopReason: null, stopDetail: null });
    reopened.close();
  });
});

describe('autonomy modes', () => {
  it.each(['shadow', 'recommend'] as const)(
    '%s: reads, proposes writes, executes none',
    async (autonomy) => {
      const h = refundHarness({ honourKeys: true });
      const connection = await h.connect();
      const store = RunStore.open(h.storePath);
      const outcome = await h.runtime(connection, store).start({
        runId: 'run-1',
        input: { order_id: ORDER },
        contract: refundContract({ autonomy }),
        blueprint: refundBlueprint(true),
      });
      expect(outcome.state).toBe('completed');
      expect(h.world.ledger.entries()).toHaveLength(0);
      expect(
        h.calls().every((c) => c.tool !== 'issue_refund' && c.tool !== 'send_customer_message'),
      ).toBe(true);
      expect(
        store
          .actions('run-1')
          .filter((a) => a.status === 'proposed')
          .map((a) => a.operationId),
      ).toEqual(['refund', 'notify']);
      store.close();
      await connection.close();
    },
  );
});

describe('decision boundary', () => {
  /** Refund only when the order still shows at least that much refundable; the findings decide. */
  function conditional(minimum: number): BlueprintInput {
    const bp = refundBlueprint(true);
    const when = { path: 'order.refundable_cents', op: 'gte' as const, value: minimum };
    return {
      ...bp,
      operations: bp.operations.map((op) => (op.kind === 'write' ? { ...op, when } : op)),
    };
  }

  it.each([
    ['investigate', 'the findings rule the writes out', 10_000_000, 'decided-not-to-act', 0],
    ['investigate', 'the findings call for the writes', 1, null, 2],
    ['execute', 'a condition skips the writes of a decision already made', 10_000_000, null, 0],
  ] as const)(
    '%s, where %s: stop reason %s',
    async (decisionBoundary, _why, minimum, stopReason, effects) => {
      const h = refundHarness({ honourKeys: true });
      const connection = await h.connect();
      const store = RunStore.open(h.storePath);
      const outcome = await h.runtime(connection, store).start({
        runId: 'run-1',
        input: { order_id: ORDER },
        contract: refundContract({ decisionBoundary }),
        blueprint: conditional(minimum),
      });
      expect(outcome.state).toBe('completed');
      expect(outcome.stopReason ?? null).toBe(stopReason);
      expect(store.getRun('run-1')?.stopReason ?? null).toBe(stopReason);
      expect(h.world.ledger.entries()).toHaveLength(effects);
      store.close();
      await connection.close();
    },
  );
});

describe('cancellation', () => {
  it('is a transition: no new actions, compensation where promised, credential revoked', async () => {
    let polls = 0;
    const operator: Operator = {
      requestApproval: () => Promise.reject(new Error('no approvals expected')),
      // The refund is done once the planner has been asked three times (read, refund, then notify).
      poll: (): OperatorCommand | undefined =>
        ++polls === 3 ? { kind: 'cancel', reason: 'customer withdrew the request' } : undefined,
      nextCommand: () => Promise.resolve({ kind: 'resume' }),
    };
    const h = refundHarness({ honourKeys: true, operator });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const outcome = await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(true),
    });

    expect(outcome.state).toBe('compensated');
    expect(h.calls().some((c) => c.tool === 'send_customer_message')).toBe(false);
    const [refund, undo] = h.world.ledger.entries();
    expect(refund?.tool).toBe('issue_refund');
    expect(undo).toMatchObject({ tool: 'void_refund', compensates: refund?.seq });
    expect(
      h.world.credentials.check(h.credential.token, 'get_order', { order_id: ORDER }),
    ).toMatchObject({ ok: false, class: 'unauthenticated' });
    const cancelled = store.events('run-1').find((e) => e.type === 'run.cancelled');
    expect(cancelled?.data).toEqual({ compensationOwed: ['refund'] });
    store.close();
    await connection.close();
  });
});

describe('approvals', () => {
  it('in supervised mode every write waits for a person; a granted token is consumed once', async () => {
    const granted: string[] = [];
    const h = refundHarness({ honourKeys: true });
    const operator: Operator = {
      requestApproval: async (request) => {
        await h.clock.sleep(15 * 60_000);
        const identity =
          h.world.approvalIdentity(request.tool, request.args) ??
          `${request.tool}:${request.actionId}`;
        const { token } = h.world.approvals.grant({
          runId: request.runId,
          tool: request.tool,
          identity,
          approver: 'lead',
        });
        granted.push(request.operationId);
        return { decision: 'granted', approver: 'lead', token, at: h.clock.now() };
      },
      poll: () => undefined,
      nextCommand: () => Promise.resolve({ kind: 'resume' }),
    };
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const runtime = h.runtime(connection, store, { operator });
    const outcome = await runtime.start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract({ autonomy: 'supervised' }),
      blueprint: refundBlueprint(true),
    });

    expect(outcome.state).toBe('completed');
    expect(granted).toEqual(['refund', 'notify']);
    expect(h.clock.now()).toBeGreaterThanOrEqual(30 * 60_000);
    expect(store.approvals('run-1').map((a) => a.status)).toEqual(['consumed', 'consumed']);
    store.close();
    await connection.close();
  });
});

describe('bad input', () => {
  it('a malformed contract is refused naming the field, and nothing is written to the store', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const contract = {
      ...refundContract(),
      budgets: { toolCalls: 0, retries: 1, externalWrites: 1, virtualTimeMs: 1 },
    };
    const start = h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract,
      blueprint: refundBlueprint(true),
    });

    await expect(start).rejects.toThrow(InvalidInputError);
    await expect(start).rejects.toThrow(/budgets\.toolCalls/);
    expect(store.listRuns()).toEqual([]);
    expect(h.calls()).toHaveLength(0);
    store.close();
    await connection.close();
  });

  it('a blueprint naming a tool the world lacks is refused before anything runs', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    const blueprint = refundBlueprint(true);
    (blueprint.operations[1] as { tool: string }).tool = 'wire_money';
    await expect(
      h.runtime(connection, store).start({
        runId: 'run-1',
        input: { order_id: ORDER },
        contract: refundContract(),
        blueprint,
      }),
    ).rejects.toThrow(/operations\[1\]\.tool: the world has no tool "wire_money"/);
    expect(store.listRuns()).toEqual([]);
    store.close();
    await connection.close();
  });
});

describe('records', () => {
  it('never store the credential, and the run is reconstructable from events', async () => {
    const h = refundHarness({ honourKeys: true });
    const connection = await h.connect();
    const store = RunStore.open(h.storePath);
    await h.runtime(connection, store).start({
      runId: 'run-1',
      input: { order_id: ORDER },
      contract: refundContract(),
      blueprint: refundBlueprint(true),
    });
    const events = store.events('run-1');
    store.close();
    await connection.close();

    const files = ['', '-wal'].map((suffix) => h.storePath + suffix).filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files)
      expect(readFileSync(file, 'latin1').includes(h.credential.token)).toBe(false);
    // Replaying the transitions in the event log arrives at the stored state.
    const transitions = events.filter((e) => e.toState !== null);
    expect(transitions[0]?.toState).toBe('created');
    for (let i = 1; i < transitions.length; i++)
      expect(transitions[i]!.fromState).toBe(transitions[i - 1]!.toState);
    expect(transitions.at(-1)?.toState).toBe('completed');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });
});
