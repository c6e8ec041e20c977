import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { WireAction, WireCall, WireDecider } from '../../faults/wire-transport.js';
import { META, toolErrorSchema } from '../../runtime/protocol.js';
import type { WorldConnection } from '../../scenarios/world/serve.js';
import { ORDER, refundHarness, type Harness } from '../support/refund-harness.js';

/** Enough real event-loop turns for a reply that is coming to have arrived (see the control test). */
const TURNS = 50;

let connection: WorldConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

interface Fixture {
  h: Harness;
  call: (
    tool: string,
    args: Record<string, unknown>,
    options?: { key?: string; signal?: AbortSignal },
  ) => Promise<CallToolResult>;
}

/** A refunds world (seed 7) behind a wire-fault layer with `decide`, and a client that presents the run's credential. */
async function fixture(decide?: WireDecider): Promise<Fixture> {
  const h = refundHarness({ honourKeys: true });
  const conn = await h.connect(decide);
  connection = conn;
  return {
    h,
    call: async (tool, args, options = {}) =>
      (await conn.client.callTool(
        {
          name: tool,
          arguments: args,
          _meta: {
            [META.credential]: h.credential.token,
            ...(options.key === undefined ? {} : { [META.idempotencyKey]: options.key }),
          },
        },
        undefined,
        options.signal ? { signal: options.signal } : {},
      )) as CallToolResult,
  };
}

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Whether `promise` has settled after `n` real event-loop turns; never touches virtual time. */
async function settlesWithin(promise: Promise<unknown>, n: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turns(n);
  return settled;
}

/** The first call (1-based per tool) of `tool` gets `action`. */
function onFirst(tool: string, action: WireAction): WireDecider {
  return (call) => (call.tool === tool && call.toolCall === 1 ? action : undefined);
}

const REFUND = { order_id: ORDER, amount_cents: 2500, reason: 'goodwill' };

function rateLimited(): Record<string, unknown> {
  return {
    isError: true,
    content: [{ type: 'text', text: 'slow down' }],
    _meta: { [META.error]: { class: 'rate_limited', message: 'slow down', retryAfterMs: 30_000 } },
  };
}

describe('WireFaultTransport: calls nobody decided on', () => {
  it('delivers them and records each reply, success and refusal alike', async () => {
    const { h, call } = await fixture();

    const read = call('get_order', { order_id: ORDER });
    expect(await settlesWithin(read, TURNS)).toBe(true); // control: a delivered reply arrives within TURNS
    const readResult = await read;
    const refusal = await call('issue_refund', { ...REFUND, amount_cents: 9_999_999 });

    expect(readResult.isError).toBeFalsy();
    expect(readResult.structuredContent).toMatchObject({ order_id: ORDER });
    expect(refusal.isError).toBe(true);
    expect(toolErrorSchema.parse(refusal._meta?.[META.error]).class).toBe('precondition_failed');
    expect(h.calls().map((c) => [c.tool, c.fault, c.reply, c.isError])).toEqual([
      ['get_order', null, 'delivered', false],
      ['issue_refund', null, 'delivered', true],
    ]);
  });

  it('passes other messages through without recording them', async () => {
    const { h } = await fixture(() => ({ kind: 'drop-request', fault: 'would-drop-anything' }));

    const { tools } = await connection!.client.listTools();

    expect(tools.map((t) => t.name)).toContain('issue_refund');
    expect(h.calls()).toEqual([]);
  });
});

describe('WireFaultTransport: the contract arguments', () => {
  it("records a key and token sent as ordinary arguments, and the world's own arguments without them", async () => {
    const { h, call } = await fixture();

    await call('issue_refund', { ...REFUND, idempotency_key: 'arg-key', approval_token: 'apr_9' });
    await call('issue_refund', REFUND, { key: 'meta-key' });

    expect(h.calls().map((c) => [c.args, c.idempotencyKey, c.approvalToken])).toEqual([
      [REFUND, 'arg-key', 'apr_9'],
      [REFUND, 'meta-key', null],
    ]);
  });

  it('passes the approval tools through: never recorded, never shown to the decider', async () => {
    const decided: string[] = [];
    const { h } = await fixture((c) => {
      decided.push(c.tool);
      return { kind: 'drop-request', fault: 'would-drop-anything' };
    });

    // This connection serves no approval desk: the server answers that it has no such tool.
    const result = (await connection!.client.callTool({
      name: 'get_approval',
      arguments: { request_id: 'approval-1' },
    })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect(decided).toEqual([]);
    expect(h.calls()).toEqual([]);
  });
});

describe('WireFaultTransport: drop-reply (lost acknowledgement)', () => {
  it('lets the world apply the write and withholds its reply from the client', async () => {
    const { h, call } = await fixture(
      onFirst('issue_refund', { kind: 'drop-reply', fault: 'lost-ack' }),
    );
    const controller = new AbortController();
    const gaveUp = new McpError(-1, 'test gave up waiting');

    const refund = call('issue_refund', REFUND, { key: 'refund-key-1', signal: controller.signal });
    const replied = await settlesWithin(refund, TURNS);
    controller.abort(gaveUp);

    expect(replied).toBe(false);
    await expect(refund).rejects.toBe(gaveUp);
    const [entry] = h.refunds();
    expect(h.refunds()).toHaveLength(1);
    expect(entry).toMatchObject({
      tool: 'issue_refund',
      identity: `refund:${ORDER}:2500`,
      idempotencyKey: 'refund-key-1',
    });
    const [wire] = h.calls();
    expect(wire).toMatchObject<Partial<WireCall>>({
      tool: 'issue_refund',
      fault: 'lost-ack',
      reply: 'dropped',
      isError: false,
      idempotencyKey: 'refund-key-1',
    });
    expect(entry!.requestId).toBe(wire!.callId);
  });

  it('leaves later calls alone, so the agent can find the effect it never heard about', async () => {
    const { h, call } = await fixture(
      onFirst('issue_refund', { kind: 'drop-reply', fault: 'lost-ack' }),
    );
    const controller = new AbortController();
    const refund = call('issue_refund', REFUND, { key: 'k', signal: controller.signal });
    await settlesWithin(refund, TURNS);
    controller.abort(new McpError(-1, 'gave up'));
    await expect(refund).rejects.toThrow('gave up');

    const listed = await call('list_refunds', { order_id: ORDER });

    expect(listed.structuredContent).toMatchObject({
      refunds: [{ order_id: ORDER, amount_cents: 2500, status: 'issued' }],
    });
    expect(h.calls().map((c) => c.reply)).toEqual(['dropped', 'delivered']);
  });

  it('records whether the withheld reply was an error', async () => {
    const { h, call } = await fixture(
      onFirst('issue_refund', { kind: 'drop-reply', fault: 'lost-ack' }),
    );
    const controller = new AbortController();

    const refused = call(
      'issue_refund',
      { ...REFUND, amount_cents: 9_999_999 },
      { signal: controller.signal },
    );
    const replied = await settlesWithin(refused, TURNS);
    controller.abort(new McpError(-1, 'gave up'));

    expect(replied).toBe(false);
    await expect(refused).rejects.toThrow('gave up');
    expect(h.refunds()).toEqual([]);
    expect(h.calls()[0]).toMatchObject({ reply: 'dropped', isError: true });
  });
});

describe('WireFaultTransport: drop-request', () => {
  it('keeps the request from the world and sends no reply', async () => {
    const { h, call } = await fixture(
      onFirst('issue_refund', { kind: 'drop-request', fault: 'timeout-before-send' }),
    );
    const controller = new AbortController();
    const gaveUp = new McpError(-1, 'test gave up waiting');

    const refund = call('issue_refund', REFUND, { key: 'k', signal: controller.signal });
    const replied = await settlesWithin(refund, TURNS);
    controller.abort(gaveUp);

    expect(replied).toBe(false);
    await expect(refund).rejects.toBe(gaveUp);
    expect(h.world.ledger.entries()).toEqual([]);
    expect(h.world.state.refunds).toEqual([]);
    expect(h.calls()).toEqual([
      expect.objectContaining({
        tool: 'issue_refund',
        fault: 'timeout-before-send',
        reply: 'dropped',
        isError: null,
      }),
    ]);
  });
});

describe('WireFaultTransport: respond', () => {
  it('answers in the world’s place with the injected typed error, leaving the world untouched', async () => {
    const { h, call } = await fixture(
      onFirst('issue_refund', { kind: 'respond', fault: 'rate-limit', result: rateLimited() }),
    );
    const before = h.world.snapshot();

    const result = await call('issue_refund', REFUND, { key: 'k' });

    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'slow down' }]);
    expect(toolErrorSchema.parse(result._meta?.[META.error])).toEqual({
      class: 'rate_limited',
      message: 'slow down',
      retryAfterMs: 30_000,
    });
    expect(h.world.ledger.entries()).toEqual([]);
    expect(h.world.snapshot()).toEqual(before);
    expect(h.calls()).toEqual([
      expect.objectContaining({
        tool: 'issue_refund',
        fault: 'rate-limit',
        reply: 'injected',
        isError: true,
      }),
    ]);
  });

  it('records an injected success as not an error', async () => {
    const fake = { content: [{ type: 'text', text: 'pretend' }] };
    const { h, call } = await fixture(
      onFirst('was_message_sent', { kind: 'respond', fault: 'lie', result: fake }),
    );

    const result = await call('was_message_sent', {
      customer_id: 'cus_5',
      template: 'refund_issued',
      order_id: ORDER,
    });

    expect(result.content).toEqual(fake.content);
    expect(h.calls()[0]).toMatchObject({ reply: 'injected', isError: false });
  });

  it('hands the next call of the same tool to the world again', async () => {
    const { h, call } = await fixture(
      onFirst('issue_refund', { kind: 'respond', fault: 'rate-limit', result: rateLimited() }),
    );

    await call('issue_refund', REFUND, { key: 'k' });
    const retry = await call('issue_refund', REFUND, { key: 'k' });

    expect(retry.isError).toBeFalsy();
    expect(h.refunds()).toHaveLength(1);
    expect(h.calls().map((c) => [c.toolCall, c.reply])).toEqual([
      [1, 'injected'],
      [2, 'delivered'],
    ]);
  });
});

describe('WireFaultTransport: counters and what the decider sees', () => {
  it('counts calls per tool (toolCall) and overall (step), dropped ones included', async () => {
    const seen: Parameters<WireDecider>[0][] = [];
    const { h, call } = await fixture((c) => {
      seen.push(c);
      return c.tool === 'list_refunds'
        ? { kind: 'respond', fault: 'stub', result: { content: [] } }
        : undefined;
    });

    await call('get_order', { order_id: ORDER });
    await call('list_refunds', { order_id: ORDER });
    await call('get_order', { order_id: ORDER });
    await call('issue_refund', REFUND, { key: 'refund-1' });
    await call('get_order', { order_id: ORDER });

    const expected = [
      ['get_order', 1, 1],
      ['list_refunds', 1, 2],
      ['get_order', 2, 3],
      ['issue_refund', 1, 4],
      ['get_order', 3, 5],
    ];
    expect(seen.map((c) => [c.tool, c.toolCall, c.step])).toEqual(expected);
    expect(h.calls().map((c) => [c.tool, c.toolCall, c.step])).toEqual(expected);
    expect(seen[3]).toMatchObject({ args: REFUND, idempotencyKey: 'refund-1' });
    expect(seen[0]!.idempotencyKey).toBeNull();
    expect(new Set(h.calls().map((c) => c.callId)).size).toBe(5);
  });

  it('counts a dropped request as a step and as that tool’s call', async () => {
    const controller = new AbortController();
    const { h, call } = await fixture(
      onFirst('get_order', { kind: 'drop-request', fault: 'gone' }),
    );
    const lost = call('get_order', { order_id: ORDER }, { signal: controller.signal });
    await settlesWithin(lost, TURNS);
    controller.abort(new McpError(-1, 'gave up'));
    await expect(lost).rejects.toThrow('gave up');

    await call('get_order', { order_id: ORDER });

    expect(h.calls().map((c) => [c.toolCall, c.step, c.reply])).toEqual([
      [1, 1, 'dropped'],
      [2, 2, 'delivered'],
    ]);
  });
});
