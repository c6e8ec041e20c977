import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { META } from '../../runtime/protocol.js';
import { runTrial, type TrialResult } from '../../scenarios/engine.js';
import { goodwillRefund } from '../../scenarios/library/refunds/goodwill-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { inClientTime, ServeSession } from '../../scenarios/serve-session.js';
import { ScaledWallClock } from '../../scenarios/wall-clock.js';
import { tmpOut } from '../support/trial-harness.js';

/**
 * A served session in process: the run on a wall clock (1 s virtual per wall ms), a stock SDK
 * client on the other end of an in-memory transport doing `drive`, then closing.
 */
async function served(
  scenario: Scenario,
  planId: string,
  drive: (client: Client) => Promise<void>,
): Promise<{ run: TrialResult; session: ServeSession }> {
  const clock = new ScaledWallClock(0.001);
  const session = new ServeSession({ instructions: 'do it', clock, idleMs: 60_000 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const plan = scenario.faultPlans.find((p) => p.id === planId);
  const trial = runTrial({
    scenario,
    agent: () => session,
    ...(plan ? { faultPlan: plan } : {}),
    outDir: tmpOut(),
    clock,
    wallLimitMs: Number.POSITIVE_INFINITY,
  });
  const client = new Client({ name: 'in-process', version: '0.0.1' });
  await client.connect(clientSide);
  await drive(client);
  await client.close();
  const run = await trial;
  clock.stop();
  return { run, session };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ServeSession', () => {
  it('forwards a cancelled call: the held request reaches the world late, in scaled wall time', async () => {
    const refund = { order_id: 'ord_3', amount_cents: 1000, reason: 'late delivery' };
    let listed: unknown[] = [];
    const { run, session } = await served(goodwillRefund, 'refund-reply-late', async (client) => {
      // The client gives up after 50 ms; its cancellation tells the world's side.
      await expect(
        client.callTool({ name: 'issue_refund', arguments: refund }, undefined, { timeout: 50 }),
      ).rejects.toThrow(/timed out/i);
      await sleep(300); // the 120 s delay is 120 ms of wall time
      const reply = await client.callTool({
        name: 'list_refunds',
        arguments: { order_id: 'ord_3' },
      });
      listed = (reply.structuredContent as { refunds: unknown[] }).refunds;
    });

    expect(session.name).toBe('in-process');
    expect(session.endReason).toBe('the client closed the session');
    const t = run.trajectory;
    expect(t.calls.map((c) => [c.tool, c.reply])).toEqual([
      ['issue_refund', 'late'],
      ['list_refunds', 'delivered'],
    ]);
    expect(listed).toHaveLength(1);
    expect(t.outcome).toMatchObject({ state: 'returned', detail: 'the client closed the session' });
    expect(t.agent).toBe('in-process');
  });

  it('after a crash the world set off, the call in flight never answers; the client carries on', async () => {
    const refund = { order_id: 'ord_4', amount_cents: 2500, reason: 'late delivery goodwill' };
    let refunds: unknown[] = [];
    const { run } = await served(partialRefund, 'crash-after-apply', async (client) => {
      await expect(
        client.callTool(
          { name: 'issue_refund', arguments: refund, _meta: { [META.operationId]: 'refund' } },
          undefined,
          { timeout: 200 },
        ),
      ).rejects.toThrow(/timed out/i);
      const reply = await client.callTool({
        name: 'list_refunds',
        arguments: { order_id: 'ord_4' },
      });
      refunds = (reply.structuredContent as { refunds: unknown[] }).refunds;
    });

    const t = run.trajectory;
    expect(t.crashes.map((c) => c.probe)).toEqual(['after-apply']);
    // The reply never crossed: the wire records the call as lost, the world as applied.
    expect(t.calls.map((c) => [c.incarnation, c.tool, c.outcome])).toEqual([
      [0, 'issue_refund', { type: 'info', reason: 'lost' }],
      [1, 'list_refunds', { type: 'ok' }],
    ]);
    expect(t.calls[0]!.effects).toHaveLength(1);
    expect(refunds).toHaveLength(1);
  });

  it('ends by itself when the run is out of time, and when told to', async () => {
    const clock = new ScaledWallClock(0.001);
    const session = new ServeSession({ instructions: '', clock, idleMs: 60_000 });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    const client = new Client({ name: 'idle', version: '1' });
    await client.connect(clientSide);
    const controller = new AbortController();
    const ended = session.start({
      client,
      signal: controller.signal,
    } as unknown as Parameters<ServeSession['start']>[0]);
    controller.abort(new Error('virtual time limit reached'));

    expect(await ended).toMatchObject({
      state: 'returned',
      detail: "the run's time is up (virtual time limit reached)",
    });
    session.end('interrupted (SIGINT)');
    expect(session.endReason).toBe("the run's time is up (virtual time limit reached)");
    clock.stop();
  });

  it('ends after its idle time with no message and nothing in flight', async () => {
    const session = new ServeSession({
      instructions: '',
      clock: new ScaledWallClock(0.001),
      idleMs: 50,
    });

    expect(await session.ended()).toBe('no message from the client for 0.05 s');
    expect(session.connected).toBe(false);
  });
});

describe('inClientTime', () => {
  it("tells the client a rate limit's retry-after in its own wall time, rounded up", () => {
    const reply = {
      isError: true,
      content: [],
      _meta: {
        [META.error]: { class: 'rate_limited', message: 'slow down', retryAfterMs: 90_001 },
      },
    };

    expect(inClientTime(reply, 0.01)._meta[META.error]).toEqual({
      class: 'rate_limited',
      message: 'slow down',
      retryAfterMs: 901,
    });
    expect(reply._meta[META.error].retryAfterMs).toBe(90_001);
  });

  it('leaves every other reply as it is', () => {
    const ok = { content: [], structuredContent: { x: 1 } };
    expect(inClientTime(ok, 0.01)).toBe(ok);
  });
});
