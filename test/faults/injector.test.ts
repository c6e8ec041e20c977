import { describe, expect, it } from 'vitest';
import type { FaultInput } from '../../faults/catalog.js';
import { FaultInjector, seededRandom, type FaultTarget } from '../../faults/injector.js';
import type { WireCall } from '../../faults/wire-transport.js';
import { InvalidInputError } from '../../runtime/errors.js';
import type { ApprovalRequest, Operator } from '../../runtime/operator.js';
import type { Planner } from '../../runtime/planner.js';
import type { WorkingContext } from '../../runtime/working-context.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { supervisedRefund } from '../../scenarios/library/refunds/supervised-refund.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import type { RefundsState } from '../../scenarios/worlds/refunds/world.js';
import {
  callsOf,
  observe,
  plan,
  runEffects,
  supervisedPartial,
  tmpOut,
  wroteStores,
} from '../support/trial-harness.js';

const HOUR = 3_600_000;
/** supervised-refund: every write waits 40 minutes for its approval, so virtual time passes. */
const APPROVAL_WAIT = 40 * 60_000;

// ── the injector on its own: hooks fed by hand ─────────────────────────────

function fakeTarget(log: string[] = []): FaultTarget {
  return {
    writeTools: new Set(['issue_refund', 'send_customer_message']),
    revoke: (tool) => (log.push(`revoke ${tool}`), `revoked ${tool}`),
    expireCredential: () => (log.push('expire'), 'expired'),
    staleChange: (change) => (log.push(`stale ${change}`), `changed ${change}`),
    plantDocument: (tool) => (log.push(`plant ${tool}`), `planted in ${tool}`),
    dropChange: (callId, tool) => (log.push(`drop ${callId}`), `${tool} change dropped`),
  };
}

/** Feeds `tools` to the decider in order, counting per tool and overall like the wire does. */
function feed(injector: FaultInjector, tools: string[]): (string | null)[] {
  const perTool = new Map<string, number>();
  return tools.map((tool, i) => {
    const toolCall = (perTool.get(tool) ?? 0) + 1;
    perTool.set(tool, toolCall);
    const call: WireCall = {
      callId: `0/${i + 1}`,
      connection: 0,
      tool,
      args: {},
      meta: {},
      idempotencyKey: null,
      approvalToken: null,
      toolCall,
      step: i + 1,
      at: 0,
      order: i + 1,
      fault: null,
      reply: 'pending',
      isError: null,
      errorClass: null,
    };
    return injector.decide(call)?.fault ?? null;
  });
}

function injectorFor(
  faults: FaultInput[],
  options: { seed?: number; clock?: VirtualClock; log?: string[] } = {},
): FaultInjector {
  return new FaultInjector(
    plan('unit', ...faults),
    options.seed ?? 1,
    options.clock ?? new VirtualClock(),
    fakeTarget(options.log),
  );
}

const TOOLS = ['get_order', 'get_order', 'issue_refund', 'list_refunds', 'issue_refund'];

const request = (tool: string): ApprovalRequest => ({
  approvalId: `a:${tool}`,
  runId: 'r',
  actionId: `r:${tool}`,
  operationId: tool,
  tool,
  args: {},
  evidenceRefs: [],
  requestedAt: 0,
});

/** An operator that grants everything at once and counts how often it was asked. */
function grantingOperator(): Operator & { asked: number } {
  const operator = {
    asked: 0,
    requestApproval: (r: ApprovalRequest) => {
      operator.asked++;
      return Promise.resolve({
        decision: 'granted' as const,
        approver: 'ops',
        token: `tok-${r.tool}`,
        at: 0,
      });
    },
    poll: () => undefined,
    nextCommand: () => Promise.resolve({ kind: 'resume' as const }),
  };
  return operator;
}

const CONTEXT = {
  runId: 'r',
  evidence: [],
  operations: [],
  scope: {},
} as unknown as WorkingContext;

function scriptedPlanner(seen: WorkingContext[] = []): Planner {
  return {
    versions: { model: 'scripted', prompt: 'p@1' },
    propose: (context) => {
      seen.push(context);
      return Promise.resolve({ proposal: { kind: 'finish', summary: 'done' } });
    },
  };
}

describe('FaultInjector, fed by hand', () => {
  it('fires a call trigger on exactly the nth call of its tool, once', () => {
    const injector = injectorFor([
      { kind: 'transient', trigger: { on: 'call', tool: 'issue_refund', nth: 2 } },
    ]);

    expect(feed(injector, [...TOOLS, 'issue_refund'])).toEqual([
      null,
      null,
      null,
      null,
      'transient',
      null,
    ]);
    expect(injector.fired.map((f) => [f.index, f.callId])).toEqual([[0, '0/5']]);
    expect(injector.notFired()).toEqual([]);
  });

  it('records a world change the world refuses as fired and not made, on a call or at a time', async () => {
    const clock = new VirtualClock();
    const injector = new FaultInjector(
      plan(
        'unit',
        { kind: 'stale-record', trigger: { on: 'step', step: 1 }, change: 'claim-withdrawn' },
        { kind: 'stale-record', trigger: { on: 'time', atMs: 10 }, change: 'claim-withdrawn' },
      ),
      1,
      clock,
      {
        ...fakeTarget(),
        staleChange: () => {
          throw new Error('exp_1 is paid and cannot be withdrawn');
        },
      },
    );
    injector.armTimers();

    expect(feed(injector, ['get_order'])).toEqual(['stale-record']);
    await clock.sleep(20);

    expect(injector.fired.map((f) => f.detail)).toEqual([
      'the world refused the change: exp_1 is paid and cannot be withdrawn',
      'the world refused the change: exp_1 is paid and cannot be withdrawn',
    ]);
  });

  it('fires a step trigger on the kth call of any tool, and first-write on the first write only', () => {
    const injector = injectorFor([
      { kind: 'timeout', trigger: { on: 'step', step: 2 } },
      { kind: 'lost-ack', trigger: { on: 'first-write' } },
    ]);

    expect(feed(injector, TOOLS)).toEqual([null, 'timeout', 'lost-ack', null, null]);
  });

  it('fires a write trigger on the nth write of any write tool, never on a read', () => {
    const injector = injectorFor([
      { kind: 'transient', trigger: { on: 'write', nth: 2 } },
      { kind: 'stale-record', trigger: { on: 'write', nth: 1 }, change: 'price-change' },
    ]);

    // Writes: issue_refund (3rd call), issue_refund (5th); the world fault passes the call on.
    expect(feed(injector, [...TOOLS, 'send_customer_message'])).toEqual([
      null,
      null,
      'stale-record',
      null,
      'transient',
      null,
    ]);
  });

  it('crashes after the nth write the world applied, a request counted once, per tool when named', () => {
    const injector = injectorFor([
      { kind: 'crash', trigger: { on: 'applied-write', nth: 2 } },
      {
        kind: 'crash',
        trigger: { on: 'applied-write', nth: 2, tool: 'issue_refund' },
        mode: 'child',
      },
    ]);

    expect(injector.crashAfterApplied('issue_refund', '0/1')).toBeUndefined();
    // A second effect of the same request is not another write.
    expect(injector.crashAfterApplied('issue_refund', '0/1')).toBeUndefined();
    expect(injector.crashAfterApplied('send_customer_message', '0/2')).toEqual({
      index: 0,
      mode: 'in-process',
    });
    expect(injector.crashAfterApplied('issue_refund', '1/1')).toEqual({ index: 1, mode: 'child' });
    expect(injector.crashAfterApplied('issue_refund', '1/2')).toBeUndefined();
    expect(injector.fired.map((f) => [f.index, f.callId])).toEqual([
      [0, '0/2'],
      [1, '1/1'],
    ]);
  });

  it('never fires a fault it was told cannot apply to the agent, on any layer', async () => {
    const clock = new VirtualClock();
    const injector = new FaultInjector(
      plan(
        'skipped',
        { kind: 'timeout', trigger: { on: 'call', tool: 'get_order', nth: 1 } },
        { kind: 'crash', trigger: { on: 'probe', probe: 'before-send' } },
        { kind: 'invalid-output', trigger: { on: 'proposal', nth: 1 } },
        { kind: 'crash', trigger: { on: 'applied-write', nth: 1 } },
      ),
      1,
      clock,
      fakeTarget(),
      [1, 2, 3],
    );

    expect(feed(injector, ['get_order'])).toEqual(['timeout']);
    expect(injector.crashAt('before-send', { operationId: 'refund' })).toBeUndefined();
    expect(injector.crashAfterApplied('issue_refund', '0/2')).toBeUndefined();
    const reply = await injector.decoratePlanner(scriptedPlanner()).propose(CONTEXT);
    expect(reply).toEqual({ proposal: { kind: 'finish', summary: 'done' } });
    expect(injector.fired.map((f) => f.index)).toEqual([0]);
  });

  it('reports the faults that never fired', () => {
    const injector = injectorFor([
      { kind: 'timeout', trigger: { on: 'step', step: 1 } },
      { kind: 'timeout', trigger: { on: 'call', tool: 'issue_refund', nth: 9 } },
    ]);

    feed(injector, TOOLS);

    expect(injector.notFired()).toEqual([1]);
  });

  it('fires world faults through the target at the call that triggers them, marking that call and nothing else', () => {
    const log: string[] = [];
    const injector = injectorFor(
      [
        { kind: 'revoked-permission', trigger: { on: 'first-write' }, tool: 'issue_refund' },
        {
          kind: 'stale-record',
          trigger: { on: 'call', tool: 'list_refunds', nth: 1 },
          change: 'refund-elsewhere',
        },
      ],
      { log },
    );

    // The call passes through to the world untouched, carrying the mark of the fault it set off.
    expect(feed(injector, TOOLS)).toEqual([null, null, 'revoked-permission', 'stale-record', null]);
    expect(log).toEqual(['revoke issue_refund', 'stale refund-elsewhere']);
    expect(injector.fired.map((f) => f.callId)).toEqual(['0/3', '0/4']);
  });

  it('rewrites only the evidence tool it names', () => {
    const injector = injectorFor([
      { kind: 'missing-evidence', trigger: { on: 'step', step: 1 }, tool: 'list_refunds' },
      { kind: 'missing-evidence', trigger: { on: 'step', step: 4 }, tool: 'list_refunds' },
    ]);

    expect(feed(injector, TOOLS)).toEqual([null, null, null, 'missing-evidence', null]);
    expect(injector.notFired()).toEqual([0]);
  });

  it('answers every call in an unavailable window, then lets calls through', () => {
    const clock = new VirtualClock();
    const injector = injectorFor(
      [{ kind: 'unavailable', trigger: { on: 'step', step: 1 }, windowMs: 1000 }],
      { clock },
    );

    expect(feed(injector, ['get_order', 'get_order'])).toEqual(['unavailable', 'unavailable']);
    clock.advanceTo(999);
    expect(feed(injector, ['list_refunds'])).toEqual(['unavailable']);
    clock.advanceTo(1000);
    expect(feed(injector, ['list_refunds'])).toEqual([null]);
    expect(injector.fired).toHaveLength(1);
  });

  it('draws probability triggers from the seed: same seed, same hits; another seed, others', () => {
    const fault: FaultInput = { kind: 'transient', trigger: { on: 'probability', p: 0.5 } };
    const tools = Array.from({ length: 40 }, (_, i) => (i % 2 ? 'get_order' : 'list_refunds'));
    const hits = (seed: number) =>
      feed(injectorFor([fault], { seed }), tools).map((f) => f !== null);

    expect(hits(11)).toEqual(hits(11));
    expect(hits(11)).not.toEqual(hits(12));
    expect(hits(11).filter(Boolean).length).toBeGreaterThan(5);
  });

  it('keeps a probability trigger with a tool to that tool', () => {
    const injector = injectorFor([
      { kind: 'transient', trigger: { on: 'probability', p: 1, tool: 'issue_refund' } },
    ]);

    expect(feed(injector, TOOLS)).toEqual([null, null, 'transient', null, 'transient']);
    // A probability fault may fire many times; each is recorded.
    expect(injector.fired.map((f) => f.callId)).toEqual(['0/3', '0/5']);
  });

  it('gives seededRandom a reproducible stream in [0, 1)', () => {
    const a = seededRandom('7:plan');
    const b = seededRandom('7:plan');
    const xs = Array.from({ length: 100 }, () => a());

    expect(Array.from({ length: 100 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom('8:plan')()).not.toBe(xs[0]);
  });

  it('fires time triggers from the virtual clock once armed', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    const injector = injectorFor(
      [
        { kind: 'expired-credential', trigger: { on: 'time', atMs: 5000 } },
        { kind: 'cancellation', trigger: { on: 'time', atMs: 7000 }, reason: 'stop now' },
      ],
      { clock, log },
    );
    const operator = injector.operator(grantingOperator());

    injector.armTimers();
    await clock.sleep(6000);
    expect(log).toEqual(['expire']);
    expect(operator.poll()).toBeUndefined();
    await clock.sleep(2000);

    expect(injector.fired.map((f) => [f.kind, f.at])).toEqual([
      ['expired-credential', 5000],
      ['cancellation', 7000],
    ]);
    expect(operator.poll()).toEqual({ kind: 'cancel', reason: 'stop now' });
    expect(operator.poll()).toBeUndefined();
  });

  it('denies the nth approval without asking the person, and leaves the others to them', async () => {
    const inner = grantingOperator();
    const injector = injectorFor([
      { kind: 'approval-denied', trigger: { on: 'approval', nth: 2 }, reason: 'no' },
    ]);
    const operator = injector.operator(inner);

    const first = await operator.requestApproval(request('issue_refund'));
    const second = await operator.requestApproval(request('send_customer_message'));

    expect(first.decision).toBe('granted');
    expect(second).toMatchObject({ decision: 'denied', reason: 'no' });
    expect(inner.asked).toBe(1);
  });

  it('delays the nth approval by delayMs of virtual time', async () => {
    const clock = new VirtualClock();
    const inner = grantingOperator();
    const injector = injectorFor(
      [{ kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 2 * HOUR }],
      { clock },
    );

    const decision = await injector.operator(inner).requestApproval(request('issue_refund'));

    expect(decision.decision).toBe('granted');
    expect(clock.now()).toBe(2 * HOUR);
    expect(injector.fired[0]?.at).toBe(0);
  });

  it('garbles the nth proposal, compacts a context, and swaps the model', async () => {
    const seen: WorkingContext[] = [];
    const injector = injectorFor([
      { kind: 'invalid-output', trigger: { on: 'proposal', nth: 1 } },
      { kind: 'context-compaction', trigger: { on: 'proposal', nth: 2 } },
      { kind: 'model-swap', trigger: { on: 'proposal', nth: 3 }, model: 'm2' },
    ]);
    const planner = injector.decoratePlanner(scriptedPlanner(seen));

    const garbled = await planner.propose(CONTEXT);
    await planner.propose(CONTEXT);
    expect(planner.versions.model).toBe('scripted');
    await planner.propose(CONTEXT);

    expect(garbled.proposal).toMatchObject({ kind: 'act', tool: 42 });
    expect(seen).toHaveLength(2);
    expect(seen[0]?.resume?.state).toBe('compacted');
    expect(seen[1]?.resume).toBeUndefined();
    expect(planner.versions).toEqual({ model: 'm2', prompt: 'p@1' });
  });

  it('crashes at the nth hit of a probe, for the named operation only', () => {
    const injector = injectorFor([
      {
        kind: 'crash',
        trigger: { on: 'probe', probe: 'before-send', operation: 'notify', nth: 2 },
      },
    ]);

    expect(injector.crashAt('before-send', { operationId: 'refund' })).toBeUndefined();
    expect(injector.crashAt('after-intent', { operationId: 'notify' })).toBeUndefined();
    expect(injector.crashAt('before-send', { operationId: 'notify' })).toBeUndefined();
    expect(injector.crashAt('before-send', { operationId: 'notify' })).toEqual({
      index: 0,
      mode: 'in-process',
    });
    expect(injector.crashAt('before-send', { operationId: 'notify' })).toBeUndefined();
    expect(injector.fired).toHaveLength(1);
  });
});

// ── triggers in real runs ───────────────────────────────────────────────────

describe('triggers, in real runs', () => {
  it('call: the nth call of the tool carries the fault, and no other call', async () => {
    const o = await observe(
      partialRefund,
      plan('call-2', { kind: 'transient', trigger: { on: 'call', tool: 'get_order', nth: 2 } }),
    );

    const faulted = o.t.calls.filter((c) => c.fault !== null);
    expect(faulted.map((c) => [c.tool, c.toolCall])).toEqual([['get_order', 2]]);
    expect(o.t.faults.fired[0]?.callId).toBe(faulted[0]?.callId);
  });

  it('step: the kth call of the run carries the fault, whatever its tool', async () => {
    const o = await observe(
      partialRefund,
      plan('step-3', { kind: 'transient', trigger: { on: 'step', step: 3 } }),
    );

    const faulted = o.t.calls.filter((c) => c.fault !== null);
    expect(faulted.map((c) => [c.step, c.tool])).toEqual([[3, 'issue_refund']]);
    expect(faulted[0]?.outcome).toEqual({ type: 'fail', class: 'transient' });
  });

  it('first-write: the first write carries the fault, never a read before it or a write after', async () => {
    const o = await observe(
      partialRefund,
      plan('first-write', { kind: 'transient', trigger: { on: 'first-write' } }),
    );

    const faulted = o.t.calls.filter((c) => c.fault !== null);
    expect(faulted.map((c) => [c.tool, c.toolCall])).toEqual([['issue_refund', 1]]);
    expect(o.t.calls.slice(0, faulted[0]!.step - 1).every((c) => c.tool === 'get_order')).toBe(
      true,
    );
    expect(callsOf(o.t, 'send_customer_message')[0]?.fault).toBeNull();
  });

  it('time: a world fault fires when virtual time reaches atMs, and the next write feels it', async () => {
    const atMs = 60_000;
    const o = await observe(
      supervisedRefund,
      plan('revoke-at', {
        kind: 'revoked-permission',
        trigger: { on: 'time', atMs },
        tool: 'issue_refund',
      }),
    );

    expect(o.t.faults.fired).toHaveLength(1);
    expect(o.t.faults.fired[0]!.at).toBeGreaterThanOrEqual(atMs);
    expect(o.t.faults.fired[0]!.callId).toBeNull();
    const before = o.t.calls.filter((c) => c.at < atMs);
    const refund = callsOf(o.t, 'issue_refund')[0]!;
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((c) => c.outcome.type === 'ok')).toBe(true);
    // The approval wait carried the run past the fault; the refund was refused by the world.
    expect(refund.at).toBeGreaterThanOrEqual(APPROVAL_WAIT);
    expect(refund.outcome).toEqual({ type: 'fail', class: 'forbidden' });
    expect(runEffects(o.t)).toEqual([]);
  });

  it('time: an unavailable window opens at atMs and covers the calls inside it', async () => {
    const atMs = APPROVAL_WAIT - 1000;
    const o = await observe(
      supervisedRefund,
      plan('down-at', { kind: 'unavailable', trigger: { on: 'time', atMs }, windowMs: 60_000 }),
    );

    expect(o.t.faults.fired.map((f) => f.at)).toEqual([atMs]);
    const inside = o.t.calls.filter((c) => c.at >= atMs && c.at < atMs + 60_000);
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.every((c) => c.outcome.type === 'fail' && c.fault === 'unavailable')).toBe(true);
    expect(
      o.t.calls.filter((c) => c.at < atMs || c.at >= atMs + 60_000).every((c) => c.fault === null),
    ).toBe(true);
  });

  it('probability: a fixed seed hits the same calls twice; other seeds hit others', async () => {
    const flaky = plan('flaky', { kind: 'transient', trigger: { on: 'probability', p: 0.4 } });
    const hits = async (seed: number) => {
      const o = await observe(partialRefund, flaky, { seed });
      // Every hit is recorded: a probability fault may fire many times.
      expect(o.t.faults.fired.map((f) => f.callId)).toEqual(
        o.t.calls.filter((c) => c.fault !== null).map((c) => c.callId),
      );
      return o.t.calls.map((c) => `${c.callId}:${c.fault ?? '-'}`);
    };

    const first = await hits(1);
    expect(await hits(1)).toEqual(first);
    const others = [await hits(2), await hits(3), await hits(4)];
    expect(others.some((h) => JSON.stringify(h) !== JSON.stringify(first))).toBe(true);
    expect(first.some((c) => c.endsWith(':transient'))).toBe(true);
  });

  it('probe with nth: the crash comes at the nth time the probe is reached', async () => {
    const o = await observe(
      partialRefund,
      plan('second-intent', {
        kind: 'crash',
        trigger: { on: 'probe', probe: 'after-intent', nth: 2 },
      }),
    );

    // The refund's intent is the first hit; the message's is the second.
    expect(o.t.crashes.map((c) => [c.probe, c.operation])).toEqual([['after-intent', 'notify']]);
    expect(callsOf(o.t, 'issue_refund').every((c) => c.incarnation === 0)).toBe(true);
    expect(callsOf(o.t, 'send_customer_message').every((c) => c.incarnation === 1)).toBe(true);
    expect(o.t.ledger.filter((e) => e.tool === 'send_customer_message')).toHaveLength(1);
  });

  it('proposal: the fault acts on the nth planner call', async () => {
    const o = await observe(
      partialRefund,
      plan('compact-3', { kind: 'context-compaction', trigger: { on: 'proposal', nth: 3 } }),
    );

    expect(o.agent.contexts.map((c) => c.resume?.state ?? null)).toEqual(
      o.agent.contexts.map((_, i) => (i === 2 ? 'compacted' : null)),
    );
    expect(o.agent.contexts.length).toBeGreaterThan(3);
  });

  it('approval: the fault acts on the nth approval the agent asks for', async () => {
    const o = await observe(
      supervisedPartial,
      plan('delay-first', {
        kind: 'approval-delayed',
        trigger: { on: 'approval', nth: 1 },
        delayMs: 5 * HOUR,
      }),
    );

    const asked = o.events.filter((e) => e.type === 'approval.requested');
    const granted = o.events.filter((e) => e.type === 'approval.granted');
    expect(
      granted.map((e) => e.at - asked.find((a) => a.operationId === e.operationId)!.at),
    ).toEqual([5 * HOUR, 0]);
    expect(callsOf(o.t, 'issue_refund')[0]!.at).toBeGreaterThanOrEqual(5 * HOUR);
  });
});

describe('Lost acknowledgement', () => {
  it('the world applied the write once, the agent saw no reply, the trajectory marks it indeterminate', async () => {
    const o = await observe(
      partialRefund,
      plan('lost-ack', { kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }),
    );

    const [lost, resend] = callsOf(o.t, 'issue_refund');
    // Applied once: one refund in the ledger, from the call whose reply was lost.
    const refunds = o.t.ledger.filter((e) => e.tool === 'issue_refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.requestId).toBe(lost!.callId);
    expect(lost!.effects).toEqual([refunds[0]!.seq]);
    // The agent saw no reply to it.
    const sentFirst = o.agent.received.find((r) => r.tool === 'issue_refund')!;
    expect(sentFirst.reply).toBeUndefined();
    expect(sentFirst.error).toBeDefined();
    // The trajectory says the agent could not know.
    expect(lost).toMatchObject({ reply: 'dropped', outcome: { type: 'info', reason: 'lost' } });
    expect(o.events.some((e) => e.type === 'action.ambiguous' && e.operationId === 'refund')).toBe(
      true,
    );
    // The agent resolved it without a second refund: same key, replayed by the world.
    expect(resend).toMatchObject({ idempotencyKey: lost!.idempotencyKey, effects: [] });
    const order = (o.t.world.end as RefundsState).orders.find((x) => x.order_id === 'ord_4');
    expect(order?.refunded_cents).toBe(2500);
    expect(o.t.outcome.state).toBe('completed');
  });
});

/**
 * A fault whose trigger can never fire proves nothing, silently. The catalog says which
 * triggers each kind takes, and validation refuses the rest before anything runs.
 */
describe('triggers that could never fire', () => {
  const refusal = async (fault: FaultInput): Promise<string> => {
    const outDir = tmpOut();
    try {
      await observe(supervisedRefund, plan('never', fault), { outDir });
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(wroteStores(outDir)).toBe(false);
      return (error as Error).message;
    }
    return 'accepted';
  };

  it.each([
    [
      'a wire fault (timeout) on a time trigger: no call to act on',
      { kind: 'timeout', trigger: { on: 'time', atMs: APPROVAL_WAIT - 1 } },
    ],
    [
      'an operator fault (approval-denied) on a call trigger',
      { kind: 'approval-denied', trigger: { on: 'call', tool: 'get_order', nth: 1 } },
    ],
    [
      'an approval delay on a time trigger',
      { kind: 'approval-delayed', trigger: { on: 'time', atMs: 1000 } },
    ],
    [
      'an evidence fault (missing-evidence) on a time trigger',
      { kind: 'missing-evidence', trigger: { on: 'time', atMs: 1000 }, tool: 'get_order' },
    ],
    [
      'a world fault on a probability trigger',
      { kind: 'expired-credential', trigger: { on: 'probability', p: 0.5 } },
    ],
  ] as [string, FaultInput][])('refuses %s at load', async (_name, fault) => {
    expect(await refusal(fault)).toMatch(
      /faults\[0\]\.trigger\.on: a [a-z-]+ fault cannot fire on/,
    );
  });

  // BUG (reported): an evidence fault rewrites only replies of its own `tool`, so a call trigger
  // on another tool can never fire — yet validation accepts it.
  it('refuses an evidence fault triggered by a call of another tool', async () => {
    expect(
      await refusal({
        kind: 'missing-evidence',
        trigger: { on: 'call', tool: 'get_order', nth: 1 },
        tool: 'list_refunds',
      }),
    ).not.toBe('accepted');
  });

  it('a cancellation while an approval is pending stops the run before the write', async () => {
    const o = await observe(
      supervisedRefund,
      plan('cancel-waiting', { kind: 'cancellation', trigger: { on: 'time', atMs: 60_000 } }),
    );

    expect(o.t.faults.fired.map((f) => f.at)).toEqual([60_000]);
    expect(o.t.outcome.stopReason).toBe('cancelled');
    expect(o.t.calls.filter((c) => c.at > 60_000)).toEqual([]);
    expect(runEffects(o.t)).toEqual([]);
  });

  it('a cancellation on an approval trigger stops the run before that write', async () => {
    const o = await observe(
      supervisedPartial,
      plan('cancel-at-approval', { kind: 'cancellation', trigger: { on: 'approval', nth: 1 } }),
    );

    expect(o.t.faults.fired).toHaveLength(1);
    expect(o.t.outcome).toMatchObject({ state: 'cancelled', stopReason: 'cancelled' });
    expect(callsOf(o.t, 'issue_refund')).toEqual([]);
    expect(runEffects(o.t)).toEqual([]);
  });
});
