import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createCassette,
  createReplayServer,
  parseCassette,
  RecordingTransport,
  type ToolInteraction,
} from '../../recordings/index.js';
import { connectInMemory } from './notes-server.js';

/**
 * A live server whose `refund` applies and never answers (a lost acknowledgement) unless told
 * to answer late, and whose `lookup` answers at once.
 */
function liveServer(options: { lateReply?: Promise<void> } = {}) {
  const applied: string[] = [];
  const server = new McpServer({ name: 'ledger', version: '2.0.0' });
  server.registerTool(
    'refund',
    { inputSchema: { order: z.string() }, annotations: { readOnlyHint: false } },
    async ({ order }) => {
      applied.push(order);
      await (options.lateReply ?? new Promise<void>(() => undefined));
      return { content: [{ type: 'text', text: `refunded ${order}` }] };
    },
  );
  server.registerTool(
    'lookup',
    { inputSchema: { order: z.string() }, annotations: { readOnlyHint: true } },
    ({ order }) => ({ content: [{ type: 'text', text: `${order}: paid` }] }),
  );
  return { server, applied };
}

/** A client recording through the decorator, on a clock the test moves by hand. */
async function recording(server: McpServer) {
  const time = { now: 0 };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const recorder = new RecordingTransport(clientSide, undefined, { clock: () => time.now });
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(recorder);
  return { client, recorder, time };
}

const tools = (recorder: RecordingTransport): ToolInteraction[] =>
  recorder.log.interactions().filter((i): i is ToolInteraction => i.kind === 'tool');

describe('RecordingTransport: calls that got no reply', () => {
  it('records a call the client cancelled as unanswered, waitedMs read from the given clock', async () => {
    const live = liveServer();
    const { client, recorder, time } = await recording(live.server);
    const abort = new AbortController();
    time.now = 1_000;
    const call = client.callTool({ name: 'refund', arguments: { order: 'A-1' } }, undefined, {
      signal: abort.signal,
    });
    await new Promise((r) => setTimeout(r, 10));
    time.now = 31_000;
    abort.abort('gave up');
    await expect(call).rejects.toThrow();
    await client.close();

    expect(live.applied).toEqual(['A-1']);
    expect(tools(recorder)).toEqual([
      expect.objectContaining({
        step: 1,
        tool: 'refund',
        arguments: { order: 'A-1' },
        unanswered: { waitedMs: 30_000 },
      }),
    ]);
    expect(tools(recorder)[0]).not.toHaveProperty('result');
  });

  it('records a call the SDK timed out (it sends notifications/cancelled) as unanswered', async () => {
    const live = liveServer();
    const { client, recorder, time } = await recording(live.server);
    time.now = 500;
    const call = client.callTool({ name: 'refund', arguments: { order: 'A-2' } }, undefined, {
      timeout: 30,
    });
    time.now = 750;
    await expect(call).rejects.toThrow(/timed out/i);
    const [refund] = tools(recorder);
    expect(refund?.unanswered).toEqual({ waitedMs: 250 });
    await client.close();
  });

  it('records a call still pending when the transport closes as unanswered, waited until the close', async () => {
    const live = liveServer();
    const { client, recorder, time } = await recording(live.server);
    time.now = 2_000;
    const pending = client.callTool({ name: 'refund', arguments: { order: 'A-3' } });
    pending.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 10));
    expect(tools(recorder)).toEqual([]); // not yet known: neither answered nor given up
    time.now = 9_000;
    await client.close();
    expect(tools(recorder)).toEqual([
      expect.objectContaining({ tool: 'refund', unanswered: { waitedMs: 7_000 } }),
    ]);
  });

  it('keeps the order calls were made: a lost call before an answered one stays first', async () => {
    const live = liveServer();
    const { client, recorder } = await recording(live.server);
    const lost = client.callTool({ name: 'refund', arguments: { order: 'A-4' } });
    lost.catch(() => undefined);
    await client.callTool({ name: 'lookup', arguments: { order: 'A-4' } });
    await client.close();
    expect(tools(recorder).map((i) => [i.step, i.tool, 'unanswered' in i])).toEqual([
      [1, 'refund', true],
      [2, 'lookup', false],
    ]);
  });

  it('does not turn a reply that came after the cancellation into a result', async () => {
    let answer = (): void => undefined;
    const late = new Promise<void>((r) => (answer = r));
    const live = liveServer({ lateReply: late });
    const { client, recorder, time } = await recording(live.server);
    const abort = new AbortController();
    const call = client.callTool({ name: 'refund', arguments: { order: 'A-5' } }, undefined, {
      signal: abort.signal,
    });
    await new Promise((r) => setTimeout(r, 10));
    time.now = 40;
    abort.abort();
    await expect(call).rejects.toThrow();
    answer();
    await new Promise((r) => setTimeout(r, 10));
    await client.close();
    expect(tools(recorder)).toEqual([expect.objectContaining({ unanswered: { waitedMs: 40 } })]);
  });

  it('reads the server it recorded from the initialize reply', async () => {
    const { client, recorder } = await recording(liveServer().server);
    expect(recorder.server).toEqual({ name: 'ledger', version: '2.0.0' });
    await client.close();
  });

  it('reads the wall clock (Date.now) when given no clock', async () => {
    const live = liveServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await live.server.connect(serverSide);
    const recorder = new RecordingTransport(clientSide);
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(recorder);
    const pending = client.callTool({ name: 'refund', arguments: { order: 'A-6' } });
    pending.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 30));
    await client.close();
    const waited = tools(recorder)[0]?.unanswered?.waitedMs ?? -1;
    expect(waited).toBeGreaterThanOrEqual(25);
    expect(waited).toBeLessThan(5_000);
  });
});

describe('replaying an unanswered call', () => {
  const cassette = () =>
    parseCassette(
      JSON.parse(
        JSON.stringify(
          createCassette({
            recordedAt: '2026-01-01T00:00:00.000Z',
            source: { kind: 'mcp-transport', label: 'test' },
            tools: [
              { name: 'refund', inputSchema: { type: 'object' } },
              { name: 'lookup', inputSchema: { type: 'object' } },
            ],
            interactions: [
              {
                kind: 'tool',
                tool: 'refund',
                arguments: { order: 'A-1' },
                unanswered: { waitedMs: 30_000 },
              },
              {
                kind: 'tool',
                tool: 'lookup',
                arguments: { order: 'A-1' },
                result: { content: [{ type: 'text', text: 'A-1: refunded' }] },
              },
            ],
          }),
        ),
      ),
      'unanswered.json',
    );

  it('never answers the unanswered call, and serves the next one on the path', async () => {
    const replay = createReplayServer(cassette());
    const client = await connectInMemory(replay.server);
    await expect(
      client.callTool({ name: 'refund', arguments: { order: 'A-1' } }, undefined, { timeout: 40 }),
    ).rejects.toThrow(/timed out/i);
    const next = await client.callTool({ name: 'lookup', arguments: { order: 'A-1' } });
    expect(next.content).toEqual([{ type: 'text', text: 'A-1: refunded' }]);
    expect(replay.divergence).toBeNull();
    expect(replay.remaining()).toEqual([]);
    await client.close();
  });

  it('still diverges when the unanswered call is made with other arguments', async () => {
    const replay = createReplayServer(cassette());
    const client = await connectInMemory(replay.server);
    const reply = await client.callTool({ name: 'refund', arguments: { order: 'B-9' } });
    expect(reply.isError).toBe(true);
    expect(replay.divergence?.step).toBe(1);
    await client.close();
  });
});
