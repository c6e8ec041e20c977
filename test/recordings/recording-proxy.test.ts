import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  RecordingProxy,
  RecordingTransport,
  type ToolInteraction,
} from '../../recordings/index.js';
import { notesServer } from './notes-server.js';

/** A client → proxy → live server chain, all real MCP over in-memory pairs. */
async function chain(live: McpServer) {
  const time = { now: 0 };
  const [liveClient, liveServer] = InMemoryTransport.createLinkedPair();
  await live.connect(liveServer);
  const recorder = new RecordingTransport(liveClient, undefined, { clock: () => time.now });
  const [clientSide, frontSide] = InMemoryTransport.createLinkedPair();
  const proxy = new RecordingProxy(frontSide, recorder);
  await proxy.start();
  const errors: Error[] = [];
  const client = new Client({ name: 'claude-code', version: '2.1.0' });
  client.onerror = (e) => errors.push(e);
  await client.connect(clientSide);
  return { client, proxy, recorder, time, errors };
}

const tools = (recorder: RecordingTransport): ToolInteraction[] =>
  recorder.log.interactions().filter((i): i is ToolInteraction => i.kind === 'tool');

describe('RecordingProxy', () => {
  it('passes calls through unchanged and records them, with the client named by its clientInfo', async () => {
    const notes = notesServer();
    const { client, proxy, recorder } = await chain(notes.server);
    const added = await client.callTool({ name: 'notes_add', arguments: { text: 'milk' } });
    const missing = await client.callTool({ name: 'notes_get', arguments: { id: 9 } });
    await client.close();

    expect(added.structuredContent).toEqual({ id: 1, count: 1 });
    expect(missing.isError).toBe(true);
    expect(notes.notes).toEqual(['milk']);
    expect(await proxy.ended).toBe('the client closed the session');
    expect(proxy.client).toEqual({ name: 'claude-code', version: '2.1.0' });
    expect(recorder.server).toEqual({ name: 'notes', version: '0.1.0' });
    expect(tools(recorder).map((i) => [i.tool, i.result?.isError ?? false])).toEqual([
      ['notes_add', false],
      ['notes_get', true],
    ]);
  });

  it('records the live tool list even when the client never asks, and hides its replies from the client', async () => {
    const { client, recorder, errors } = await chain(notesServer().server);
    await client.callTool({ name: 'notes_count', arguments: {} });
    await client.close();
    expect([...recorder.tools.keys()]).toEqual(['notes_add', 'notes_count', 'notes_get']);
    expect(recorder.tools.get('notes_add')?.inputSchema).toMatchObject({
      properties: { text: { type: 'string' } },
    });
    expect(errors).toEqual([]);
  });

  it('passes a cancellation on, so a call the client timed out on is recorded unanswered', async () => {
    const live = new McpServer({ name: 'ledger', version: '1.0.0' });
    live.registerTool(
      'refund',
      { inputSchema: { order: z.string() } },
      () => new Promise(() => undefined),
    );
    const { client, proxy, recorder, time } = await chain(live);
    time.now = 100;
    const call = client.callTool({ name: 'refund', arguments: { order: 'A-1' } }, undefined, {
      timeout: 30,
    });
    time.now = 3_100;
    await expect(call).rejects.toThrow(/timed out/i);
    await new Promise((r) => setTimeout(r, 10));
    expect(tools(recorder)).toEqual([
      expect.objectContaining({ tool: 'refund', unanswered: { waitedMs: 3_000 } }),
    ]);
    await proxy.close();
  });

  it('ends the session when the live server goes away, its open calls unanswered', async () => {
    const live = new McpServer({ name: 'ledger', version: '1.0.0' });
    live.registerTool(
      'refund',
      { inputSchema: { order: z.string() } },
      () => new Promise(() => undefined),
    );
    const { client, proxy, recorder } = await chain(live);
    const call = client.callTool({ name: 'refund', arguments: { order: 'A-1' } });
    call.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 10));
    expect(proxy.inFlight).toBe(1);
    await live.close();
    expect(await proxy.ended).toBe('the live server closed the connection');
    expect(tools(recorder)[0]?.unanswered).toBeDefined();
    await proxy.close();
    await client.close();
  });
});

describe('RecordingProxy.close', () => {
  it('makes every caller wait for the one close of both sides', async () => {
    const [liveClient, liveServer] = InMemoryTransport.createLinkedPair();
    await notesServer().server.connect(liveServer);
    let release = (): void => undefined;
    const slow = new Promise<void>((r) => (release = r));
    const recorder = new RecordingTransport(liveClient);
    const closeLive = recorder.close.bind(recorder);
    // A live side that takes its time to close, as a spawned server does to exit, and whose
    // second close returns at once (the SDK's stdio transport has let go of the process).
    let closes = 0;
    recorder.close = async () => {
      if (++closes > 1) return;
      await slow;
      await closeLive();
    };
    const [, frontSide] = InMemoryTransport.createLinkedPair();
    const proxy = new RecordingProxy(frontSide, recorder);
    await proxy.start();
    let firstDone = false;
    let secondDone = false;
    void proxy.close('first').then(() => (firstDone = true));
    void proxy.close('second').then(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 20));
    expect([firstDone, secondDone]).toEqual([false, false]);
    release();
    await proxy.close();
    expect([firstDone, secondDone]).toEqual([true, true]);
    expect(proxy.reason).toBe('first');
  });
});
