import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../../../runtime/credential.js';
import { APPROVAL_TOKEN_META, META } from '../../../runtime/protocol.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import {
  RefundsWorld,
  generateRefundsData,
  listRefundsOutput,
  orderViewSchema,
  refundSchema,
  wasMessageSentOutput,
  type RefundsWorldOptions,
} from '../../../scenarios/worlds/refunds/index.js';
import { connectFixture, errorOf, ok, type WorldFixture } from '../../support/world-fixture.js';

const ALL_TOOLS = [
  'get_order',
  'list_refunds',
  'issue_refund',
  'void_refund',
  'send_customer_message',
  'was_message_sent',
];
const SEED = 42;

interface Fixture extends WorldFixture<RefundsWorld> {
  /** The first order whose total is at least `cents`; fails the test if the seed has none. */
  orderWithTotal(cents: number): { order_id: string; customer_id: string; total_cents: number };
}

async function setup(
  options: Partial<Omit<RefundsWorldOptions, 'clock' | 'seed'>> = {},
  scope: Scope = { tools: ALL_TOOLS, resources: {} },
): Promise<Fixture> {
  const f = await connectFixture((clock) => new RefundsWorld({ seed: SEED, clock, ...options }), {
    scope,
    ttlMs: 3_600_000,
  });
  return {
    ...f,
    orderWithTotal: (cents) => {
      const order = f.world.snapshot().orders.find((o) => o.total_cents >= cents);
      if (!order) throw new Error(`seed ${SEED} has no order totalling ${cents} cents or more`);
      return order;
    },
  };
}

describe('generateRefundsData', () => {
  it('gives identical data for the same seed', () => {
    expect(generateRefundsData(7)).toEqual(generateRefundsData(7));
  });

  it('gives different data for different seeds', () => {
    expect(generateRefundsData(7)).not.toEqual(generateRefundsData(8));
  });

  it('generates customers, paid USD orders whose totals add up, and one payment per order', () => {
    const data = generateRefundsData(SEED);

    expect(data.customers.map((c) => c.customer_id)).toEqual([
      'cus_1',
      'cus_2',
      'cus_3',
      'cus_4',
      'cus_5',
    ]);
    expect(data.orders).toHaveLength(8);
    for (const order of data.orders) {
      const sum = order.items.reduce((s, i) => s + i.quantity * i.unit_price_cents, 0);
      expect(order.total_cents).toBe(sum);
      expect(Number.isInteger(order.total_cents)).toBe(true);
      expect(order).toMatchObject({ currency: 'USD', status: 'paid' });
      expect(data.customers.map((c) => c.customer_id)).toContain(order.customer_id);
    }
    expect(data.payments.map((p) => [p.order_id, p.amount_cents])).toEqual(
      data.orders.map((o) => [o.order_id, o.total_cents]),
    );
  });

  it('honours the requested counts', () => {
    const data = generateRefundsData(1, { customers: 2, orders: 3 });

    expect([data.customers.length, data.orders.length, data.payments.length]).toEqual([2, 3, 3]);
  });
});

describe('RefundsWorld', () => {
  describe('get_order and schemas', () => {
    it('returns an order with its refundable amount', async () => {
      const f = await setup();

      const order = orderViewSchema.parse(ok(await f.call('get_order', { order_id: 'ord_1' })));

      expect(order).toMatchObject({ order_id: 'ord_1', status: 'paid', refunded_cents: 0 });
      expect(order.refundable_cents).toBe(order.total_cents);
    });

    it('refuses an unknown order as not_found', async () => {
      const f = await setup();

      expect(errorOf(await f.call('get_order', { order_id: 'ord_999' })).class).toBe('not_found');
    });

    it('rejects arguments that break the schema and applies nothing', async () => {
      const f = await setup();

      const result = await f.call('issue_refund', {
        order_id: 'ord_1',
        amount_cents: 'ten',
        reason: 'x',
      });

      expect(result.isError).toBe(true);
      expect(f.world.ledger.entries()).toEqual([]);
    });
  });

  describe('credentials', () => {
    it('refuses a call with no credential as unauthenticated', async () => {
      const f = await setup();

      const result = (await f.client.callTool({
        name: 'get_order',
        arguments: { order_id: 'ord_1' },
      })) as CallToolResult;

      expect(errorOf(result).class).toBe('unauthenticated');
    });

    it('refuses a credential once virtual time passes its expiry', async () => {
      const f = await setup();
      ok(await f.call('get_order', { order_id: 'ord_1' }));

      f.clock.advanceTo(3_600_000);

      expect(errorOf(await f.call('get_order', { order_id: 'ord_1' })).class).toBe(
        'unauthenticated',
      );
    });

    it('refuses a revoked credential', async () => {
      const f = await setup();

      f.world.credentials.revoke(f.token);

      expect(errorOf(await f.call('get_order', { order_id: 'ord_1' })).class).toBe(
        'unauthenticated',
      );
    });

    it('refuses a tool outside the scope, including one restricted mid-run', async () => {
      const f = await setup({}, { tools: ['get_order', 'issue_refund'], resources: {} });

      const outside = errorOf(await f.call('list_refunds', { order_id: 'ord_1' }));
      f.world.credentials.restrict(f.token, 'issue_refund');
      const restricted = errorOf(
        await f.call('issue_refund', { order_id: 'ord_1', amount_cents: 100, reason: 'x' }),
      );

      expect(outside.class).toBe('forbidden');
      expect(restricted.class).toBe('forbidden');
      expect(f.world.ledger.entries()).toEqual([]);
    });

    it('refuses a resource outside the scope and names it', async () => {
      const f = await setup({}, { tools: ALL_TOOLS, resources: { order_id: ['ord_1'] } });
      ok(await f.call('get_order', { order_id: 'ord_1' }));

      const error = errorOf(
        await f.call('issue_refund', { order_id: 'ord_2', amount_cents: 100, reason: 'x' }),
      );

      expect(error.class).toBe('forbidden');
      expect(error.message).toContain('order_id "ord_2"');
    });
  });

  describe('issue_refund', () => {
    it('refunds, updates the order and records the effect under its identity', async () => {
      const f = await setup();
      const order = f.orderWithTotal(30_00);

      const refund = refundSchema.parse(
        ok(
          await f.call(
            'issue_refund',
            { order_id: order.order_id, amount_cents: 10_00, reason: 'damaged' },
            { [META.idempotencyKey]: 'k1' },
          ),
        ),
      );
      const after = orderViewSchema.parse(
        ok(await f.call('get_order', { order_id: order.order_id })),
      );

      expect(refund).toMatchObject({
        refund_id: 'ref_1',
        amount_cents: 10_00,
        idempotency_key: 'k1',
        status: 'issued',
      });
      expect(after).toMatchObject({
        status: 'partially_refunded',
        refunded_cents: 10_00,
        refundable_cents: order.total_cents - 10_00,
      });
      expect(f.world.ledger.entries()).toMatchObject([
        {
          seq: 1,
          runId: 'run-1',
          tool: 'issue_refund',
          identity: `refund:${order.order_id}:1000`,
          idempotencyKey: 'k1',
          compensates: null,
        },
      ]);
    });

    it('marks an order refunded once nothing is left to refund', async () => {
      const f = await setup({ approvalThresholdCents: 1_000_000_00 });
      const order = f.orderWithTotal(1);

      ok(
        await f.call('issue_refund', {
          order_id: order.order_id,
          amount_cents: order.total_cents,
          reason: 'x',
        }),
      );

      expect(
        orderViewSchema.parse(ok(await f.call('get_order', { order_id: order.order_id }))),
      ).toMatchObject({
        status: 'refunded',
        refundable_cents: 0,
      });
    });

    it('refuses a non-positive amount as invalid_argument', async () => {
      const f = await setup();

      const error = errorOf(
        await f.call('issue_refund', { order_id: 'ord_1', amount_cents: 0, reason: 'x' }),
      );

      expect(error.class).toBe('invalid_argument');
      expect(f.world.ledger.entries()).toEqual([]);
    });

    it('refuses more than the refundable amount as precondition_failed and says how much is refundable', async () => {
      const f = await setup({ approvalThresholdCents: 1_000_000_00 });
      const order = f.orderWithTotal(1);

      const error = errorOf(
        await f.call('issue_refund', {
          order_id: order.order_id,
          amount_cents: order.total_cents + 1,
          reason: 'x',
        }),
      );

      expect(error.class).toBe('precondition_failed');
      expect(error.message).toContain(`refundable amount of ${order.total_cents} cents`);
    });

    it('refuses an unknown order as not_found', async () => {
      const f = await setup();

      expect(
        errorOf(await f.call('issue_refund', { order_id: 'ord_0', amount_cents: 1, reason: 'x' }))
          .class,
      ).toBe('not_found');
    });
  });

  describe('idempotency keys', () => {
    const retry = async (
      f: Fixture,
      orderId: string,
    ): Promise<[CallToolResult, CallToolResult]> => {
      const args = { order_id: orderId, amount_cents: 10_00, reason: 'late' };
      const meta = { [META.idempotencyKey]: 'refund-op-1' };
      return [await f.call('issue_refund', args, meta), await f.call('issue_refund', args, meta)];
    };

    it('returns the first refund for a repeated key when the provider honours keys', async () => {
      const f = await setup();
      const order = f.orderWithTotal(30_00);

      const [first, second] = await retry(f, order.order_id);

      expect(ok(second)).toEqual(ok(first));
      expect(f.world.ledger.entries()).toHaveLength(1);
      expect(f.world.ledger.duplicates()).toEqual([]);
      expect(f.world.snapshot().refunds).toHaveLength(1);
    });

    it('applies every call when the provider ignores keys, and the ledger reports the duplicate', async () => {
      const f = await setup({ honourIdempotencyKeys: false });
      const order = f.orderWithTotal(30_00);

      const [first, second] = await retry(f, order.order_id);

      expect([ok(first)['refund_id'], ok(second)['refund_id']]).toEqual(['ref_1', 'ref_2']);
      expect(f.world.ledger.entries()).toHaveLength(2);
      expect(f.world.ledger.duplicates()).toEqual([
        { identity: `refund:${order.order_id}:1000`, seqs: [1, 2] },
      ]);
      const listed = listRefundsOutput.parse(
        ok(await f.call('list_refunds', { order_id: order.order_id })),
      );
      expect(listed.refunds.map((r) => [r.refund_id, r.idempotency_key])).toEqual([
        ['ref_1', null],
        ['ref_2', null],
      ]);
    });

    it('refuses a key reused with different arguments as conflict', async () => {
      const f = await setup();
      const order = f.orderWithTotal(30_00);
      const meta = { [META.idempotencyKey]: 'k' };
      ok(
        await f.call(
          'issue_refund',
          { order_id: order.order_id, amount_cents: 10_00, reason: 'x' },
          meta,
        ),
      );

      const error = errorOf(
        await f.call(
          'issue_refund',
          { order_id: order.order_id, amount_cents: 11_00, reason: 'x' },
          meta,
        ),
      );

      expect(error.class).toBe('conflict');
      expect(f.world.ledger.entries()).toHaveLength(1);
    });
  });

  describe('approvals above the threshold', () => {
    const threshold = 10_00;
    const amount = 12_00;

    async function approvalSetup(): Promise<Fixture & { orderId: string; identity: string }> {
      const f = await setup({ approvalThresholdCents: threshold });
      const orderId = f.orderWithTotal(3 * amount).order_id;
      return { ...f, orderId, identity: `refund:${orderId}:${amount}` };
    }

    it('does not ask for approval at or below the threshold', async () => {
      const f = await approvalSetup();

      ok(
        await f.call('issue_refund', { order_id: f.orderId, amount_cents: threshold, reason: 'x' }),
      );

      expect(f.world.ledger.entries()[0]?.approvalToken).toBeNull();
    });

    it('refuses a refund above the threshold without a token as forbidden (missing)', async () => {
      const f = await approvalSetup();

      const error = errorOf(
        await f.call('issue_refund', { order_id: f.orderId, amount_cents: amount, reason: 'x' }),
      );

      expect(error.class).toBe('forbidden');
      expect(error.message).toContain('missing');
      expect(f.world.ledger.entries()).toEqual([]);
    });

    it('accepts a granted token once and refuses it when reused', async () => {
      const f = await approvalSetup();
      const { token } = f.world.approvals.grant({
        runId: 'run-1',
        tool: 'issue_refund',
        identity: f.identity,
        approver: 'ops',
      });
      const args = { order_id: f.orderId, amount_cents: amount, reason: 'x' };

      const first = await f.call('issue_refund', args, {
        [APPROVAL_TOKEN_META]: token,
        [META.idempotencyKey]: 'a',
      });
      const reused = errorOf(
        await f.call('issue_refund', args, {
          [APPROVAL_TOKEN_META]: token,
          [META.idempotencyKey]: 'b',
        }),
      );

      expect(ok(first)).toMatchObject({ amount_cents: amount });
      expect(f.world.ledger.entries().map((e) => e.approvalToken)).toEqual([token]);
      expect(f.world.approvals.records()[0]?.consumedBy).toBe(
        f.world.ledger.entries()[0]?.requestId,
      );
      expect(reused.class).toBe('forbidden');
      expect(reused.message).toContain('reused');
    });

    it('refuses a token granted for another amount (wrong-action) or never granted (unknown)', async () => {
      const f = await approvalSetup();
      const { token } = f.world.approvals.grant({
        runId: 'run-1',
        tool: 'issue_refund',
        identity: f.identity,
        approver: 'ops',
      });

      const wrong = errorOf(
        await f.call(
          'issue_refund',
          { order_id: f.orderId, amount_cents: amount + 1, reason: 'x' },
          { [APPROVAL_TOKEN_META]: token },
        ),
      );
      const unknown = errorOf(
        await f.call(
          'issue_refund',
          { order_id: f.orderId, amount_cents: amount, reason: 'x' },
          { [APPROVAL_TOKEN_META]: 'apr_77' },
        ),
      );

      expect([wrong.class, unknown.class]).toEqual(['forbidden', 'forbidden']);
      expect(wrong.message).toContain('wrong-action');
      expect(unknown.message).toContain('unknown');
      expect(f.world.approvals.records()[0]?.consumedAt).toBeNull();
    });

    it('does not burn the token when the refund fails its precondition', async () => {
      const f = await setup({ approvalThresholdCents: threshold });
      const order = f.orderWithTotal(threshold + 1);
      const tooMuch = order.total_cents + 1;
      const { token } = f.world.approvals.grant({
        runId: 'run-1',
        tool: 'issue_refund',
        identity: `refund:${order.order_id}:${tooMuch}`,
        approver: 'ops',
      });

      const error = errorOf(
        await f.call(
          'issue_refund',
          { order_id: order.order_id, amount_cents: tooMuch, reason: 'x' },
          { [APPROVAL_TOKEN_META]: token },
        ),
      );

      expect(error.class).toBe('precondition_failed');
      expect(f.world.approvals.records()[0]?.consumedAt).toBeNull();
    });
  });

  describe('void_refund', () => {
    it('voids a duplicate refund, compensating its ledger entry and restoring the refundable amount', async () => {
      const f = await setup({ honourIdempotencyKeys: false });
      const order = f.orderWithTotal(30_00);
      const args = { order_id: order.order_id, amount_cents: 10_00, reason: 'x' };
      ok(await f.call('issue_refund', args));
      ok(await f.call('issue_refund', args));
      expect(f.world.ledger.duplicates()).toHaveLength(1);

      const voided = refundSchema.parse(ok(await f.call('void_refund', { refund_id: 'ref_2' })));

      expect(voided).toMatchObject({ refund_id: 'ref_2', status: 'voided' });
      expect(f.world.ledger.entries()[2]).toMatchObject({
        tool: 'void_refund',
        identity: 'void:ref_2',
        compensates: 2,
      });
      expect(f.world.ledger.duplicates()).toEqual([]);
      expect(
        orderViewSchema.parse(ok(await f.call('get_order', { order_id: order.order_id }))),
      ).toMatchObject({
        refunded_cents: 10_00,
        refundable_cents: order.total_cents - 10_00,
      });
      const listed = listRefundsOutput.parse(
        ok(await f.call('list_refunds', { order_id: order.order_id })),
      );
      expect(listed.refunds.map((r) => r.status)).toEqual(['issued', 'voided']);
    });

    it('refuses to void twice (precondition_failed) or an unknown refund (not_found)', async () => {
      const f = await setup();
      ok(await f.call('issue_refund', { order_id: 'ord_1', amount_cents: 1_00, reason: 'x' }));
      ok(await f.call('void_refund', { refund_id: 'ref_1' }));

      const twice = errorOf(await f.call('void_refund', { refund_id: 'ref_1' }));
      const unknown = errorOf(await f.call('void_refund', { refund_id: 'ref_9' }));

      expect([twice.class, unknown.class]).toEqual(['precondition_failed', 'not_found']);
      expect(f.world.ledger.entries()).toHaveLength(2);
    });

    it('replays a repeated key instead of failing the second void', async () => {
      const f = await setup();
      ok(await f.call('issue_refund', { order_id: 'ord_1', amount_cents: 1_00, reason: 'x' }));
      const meta = { [META.idempotencyKey]: 'void-1' };

      const first = ok(await f.call('void_refund', { refund_id: 'ref_1' }, meta));
      const again = ok(await f.call('void_refund', { refund_id: 'ref_1' }, meta));

      expect(again).toEqual(first);
      expect(f.world.ledger.entries()).toHaveLength(2);
    });
  });

  describe('customer messages', () => {
    it('sends a message on every call, key or not, and was_message_sent reports each one', async () => {
      const f = await setup();
      const order = f.orderWithTotal(1);
      const args = {
        customer_id: order.customer_id,
        template: 'refund_issued',
        order_id: order.order_id,
      };
      const before = wasMessageSentOutput.parse(ok(await f.call('was_message_sent', args)));

      ok(await f.call('send_customer_message', args, { [META.idempotencyKey]: 'm1' }));
      ok(await f.call('send_customer_message', args, { [META.idempotencyKey]: 'm1' }));
      const after = wasMessageSentOutput.parse(ok(await f.call('was_message_sent', args)));

      expect(before).toEqual({ sent: false, message_ids: [] });
      expect(after).toEqual({ sent: true, message_ids: ['msg_1', 'msg_2'] });
      expect(f.world.ledger.duplicates()).toEqual([
        { identity: `message:${order.customer_id}:refund_issued:${order.order_id}`, seqs: [1, 2] },
      ]);
    });

    it('matches the order exactly when asked whether a message was sent', async () => {
      const f = await setup();
      const order = f.orderWithTotal(1);
      ok(
        await f.call('send_customer_message', {
          customer_id: order.customer_id,
          template: 'apology',
        }),
      );

      const forOrder = wasMessageSentOutput.parse(
        ok(
          await f.call('was_message_sent', {
            customer_id: order.customer_id,
            template: 'apology',
            order_id: order.order_id,
          }),
        ),
      );
      const general = wasMessageSentOutput.parse(
        ok(
          await f.call('was_message_sent', { customer_id: order.customer_id, template: 'apology' }),
        ),
      );

      expect([forOrder.sent, general.sent]).toEqual([false, true]);
      expect(f.world.ledger.entries()[0]?.identity).toBe(`message:${order.customer_id}:apology:`);
    });

    it('refuses an unknown customer (not_found) and another customer’s order (invalid_argument)', async () => {
      const f = await setup();
      const order = f.orderWithTotal(1);
      const stranger = f.world
        .snapshot()
        .customers.find((c) => c.customer_id !== order.customer_id)!;

      const unknown = errorOf(
        await f.call('send_customer_message', { customer_id: 'cus_0', template: 'apology' }),
      );
      const mismatch = errorOf(
        await f.call('send_customer_message', {
          customer_id: stranger.customer_id,
          template: 'apology',
          order_id: order.order_id,
        }),
      );

      expect([unknown.class, mismatch.class]).toEqual(['not_found', 'invalid_argument']);
      expect(f.world.ledger.entries()).toEqual([]);
    });

    it('rejects a template that does not exist', async () => {
      const f = await setup();

      const result = await f.call('send_customer_message', {
        customer_id: 'cus_1',
        template: 'free_money',
      });

      expect(result.isError).toBe(true);
      expect(f.world.snapshot().messages).toEqual([]);
    });
  });

  describe('onApplied', () => {
    it('fires once per applied write, before the reply, and not for reads or replays', async () => {
      const f = await setup();
      const order = f.orderWithTotal(30_00);
      const applied: string[] = [];
      f.world.ledger.onApplied((entry) => {
        applied.push(`${entry.tool}:${f.world.snapshot().refunds.length}`);
      });
      const meta = { [META.idempotencyKey]: 'k' };

      ok(await f.call('get_order', { order_id: order.order_id }));
      ok(
        await f.call(
          'issue_refund',
          { order_id: order.order_id, amount_cents: 5_00, reason: 'x' },
          meta,
        ),
      );
      ok(
        await f.call(
          'issue_refund',
          { order_id: order.order_id, amount_cents: 5_00, reason: 'x' },
          meta,
        ),
      );

      expect(applied).toEqual(['issue_refund:1']);
    });
  });

  it('serves the same world for the same seed', () => {
    const clock = new VirtualClock();

    expect(new RefundsWorld({ seed: 3, clock }).snapshot()).toEqual(
      new RefundsWorld({ seed: 3, clock }).snapshot(),
    );
    expect(new RefundsWorld({ seed: 3, clock }).snapshot()).not.toEqual(
      new RefundsWorld({ seed: 4, clock }).snapshot(),
    );
  });
});
