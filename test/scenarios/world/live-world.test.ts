import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FaultlineError } from '../../../runtime/errors.js';
import { META } from '../../../runtime/protocol.js';
import { BUILT_IN_SCENARIOS } from '../../../scenarios/library/index.js';
import { runScenario } from '../../../scenarios/runner.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import {
  HELD_META,
  LiveWorldError,
  openLiveWorld,
  type LiveMode,
  type LiveWorld,
} from '../../../scenarios/world/live-world.js';
import { connectWorld, type WorldConnection } from '../../../scenarios/world/serve.js';
import { startLiveServer, type LiveServer } from '../../support/live-server.js';
import { stockAgent, stockLog } from '../../support/stock-agent.js';

const TOKEN = 'live-secret-token';
let server: LiveServer;
let world: LiveWorld | undefined;
let connection: WorldConnection | undefined;

beforeEach(async () => {
  server = await startLiveServer({ token: TOKEN });
});
afterEach(async () => {
  await connection?.close();
  await world?.close();
  await server.close();
  connection = undefined;
  world = undefined;
});

async function open(mode: LiveMode): Promise<{ world: LiveWorld; connection: WorldConnection }> {
  world = await openLiveWorld({
    target: { url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } },
    clock: new VirtualClock(),
    mode,
  });
  const { token } = world.credentials.issue(
    'run-1',
    { tools: world.tools().map((t) => t.name), resources: {} },
    60_000,
  );
  connection = await connectWorld(world, { credential: token });
  return { world, connection };
}

const refund = { order_id: 'ord_4', amount_cents: 2500, reason: 'late', idempotency_key: 'k1' };

describe('a live world', () => {
  it('lists the live server’s tools verbatim, kinds from readOnlyHint', async () => {
    const { world, connection } = await open('forward');
    const { tools } = await connection.client.listTools();
    const get = tools.find((t) => t.name === 'get_order');
    expect(get?.annotations?.readOnlyHint).toBe(true);
    expect(get?.inputSchema.properties).toHaveProperty('order_id');
    expect(world.tool('get_order')?.kind).toBe('read');
    expect(world.tool('issue_refund')?.kind).toBe('write');
    // Every request carried the header it was given.
    expect(server.headers.every((h) => h.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('forwards reads and writes to the live server and returns its results verbatim', async () => {
    const { world, connection } = await open('forward');
    const order = await connection.client.callTool({
      name: 'get_order',
      arguments: { order_id: 'ord_4' },
    });
    expect(order.structuredContent).toMatchObject({ order_id: 'ord_4' });
    const done = await connection.client.callTool({ name: 'issue_refund', arguments: refund });
    expect(done.isError).toBeUndefined();
    expect(server.calls.map((c) => c.tool)).toEqual(['get_order', 'issue_refund']);
    // The contract argument went to the server, which honours it.
    expect(server.calls[1]?.args).toMatchObject({ idempotency_key: 'k1' });
    expect(server.world.ledger.entries().map((e) => e.tool)).toEqual(['issue_refund']);
    expect(world.ledger.entries().map((e) => e.identity)).toEqual([
      'issue_refund {"amount_cents":2500,"order_id":"ord_4","reason":"late"}',
    ]);
    expect(world.snapshot()).toEqual({ forwarded: 2, held: 0 });
  });

  it('in shadow mode sends reads, holds writes as proposals, and the live server never sees them', async () => {
    const { world, connection } = await open('shadow');
    await connection.client.callTool({ name: 'get_order', arguments: { order_id: 'ord_4' } });
    const held = await connection.client.callTool({ name: 'issue_refund', arguments: refund });
    expect(held.isError).toBe(true);
    expect((held.content as { text: string }[])[0]?.text).toBe(
      'held: shadow mode executes no writes; recorded as proposal #1',
    );
    expect(held._meta?.[META.error]).toMatchObject({ class: 'policy_denied' });
    expect(held._meta?.[HELD_META]).toEqual({ proposal: 1, rule: 'autonomy.shadow' });
    expect(server.calls.map((c) => c.tool)).toEqual(['get_order']);
    expect(server.world.ledger.size).toBe(0);
    expect(world.ledger.size).toBe(0);
    expect(world.snapshot()).toEqual({ forwarded: 1, held: 1 });
    const [proposal] = world.proposals();
    expect(proposal).toMatchObject({ n: 1, tool: 'issue_refund', args: refund });
    expect(proposal?.evidence).toHaveLength(1);
  });

  it('refuses a server that turns its headers away, in one line naming it without the headers', async () => {
    const error = await openLiveWorld({
      target: { url: server.url, headers: { Authorization: 'Bearer wrong-secret' } },
      clock: new VirtualClock(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LiveWorldError);
    expect((error as FaultlineError).code).toBe('live-unreachable');
    expect((error as Error).message).toContain(server.url);
    expect((error as Error).message).not.toContain('wrong-secret');
  });
});

describe('a run against a live world', () => {
  it('runs any agent against the live server in forward mode, and closes the connection at the end', async () => {
    const out = mkdtempSync(join(tmpdir(), 'faultline-live-'));
    let opened: LiveWorld | undefined;
    const scenario = BUILT_IN_SCENARIOS.find((s) => s.id === 'refunds/partial-refund');
    if (!scenario) throw new Error('no scenario');
    try {
      const run = await runScenario(scenario, {
        outDir: out,
        agent: () => stockAgent(stockLog(), { amountCents: 2500, key: () => 'k-live' }),
        world: async ({ clock }) =>
          (opened = await openLiveWorld({
            target: { url: server.url, headers: { Authorization: `Bearer ${TOKEN}` } },
            clock,
          })),
      });
      expect(run.state).toBe('completed');
      expect(server.calls.map((c) => c.tool)).toEqual([
        'get_order',
        'issue_refund',
        'send_customer_message',
      ]);
      expect(server.world.ledger.size).toBe(2);
      expect(run.trajectory.ledger.map((e) => e.tool)).toEqual([
        'issue_refund',
        'send_customer_message',
      ]);
      // Closed by the engine: a call now fails on the closed connection.
      if (!opened) throw new Error('no world opened');
      const after = opened.credentials.issue('after', { tools: ['get_order'], resources: {} }, 1);
      await expect(
        opened.callExternal(
          'get_order',
          { order_id: 'ord_4' },
          { [META.credential]: after.token },
          'after-1',
          new AbortController().signal,
        ),
      ).rejects.toThrow(/not connected/i);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
