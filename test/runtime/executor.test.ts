import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { systemClock, type Clock } from '../../runtime/clock.js';
import { contentHash } from '../../runtime/contract.js';
import { Executor, type CallRequest } from '../../runtime/executor.js';

/** A clock whose timers fire only when the test says so. */
class ManualClock implements Clock {
  private readonly timers = new Set<() => void>();
  now(): number {
    return 0;
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
  setTimer(_ms: number, fire: () => void): () => void {
    this.timers.add(fire);
    return () => this.timers.delete(fire);
  }
  /** Fires the timer armed `nth` (0-based) among those still armed. */
  fire(nth = 0): void {
    const fire = [...this.timers][nth];
    if (!fire) throw new Error(`no timer ${nth} is armed`);
    this.timers.delete(fire);
    fire();
  }
}

interface Rig {
  executor: Executor;
  clock: ManualClock;
  /** An executor of the same client on the system clock. */
  onWallClock: Executor;
  /** Makes the server answer the next request with this JSON-RPC error instead of its result. */
  failNext: (error: { code: number; message: string; data?: unknown }) => void;
  /** Request ids the server was told to cancel. */
  cancelled: unknown[];
  /** Releases every `hang` call still waiting. */
  release: () => void;
  close: () => Promise<void>;
}

const open: Rig[] = [];

afterEach(async () => {
  for (const rig of open.splice(0)) await rig.close();
});

/** An MCP server with `echo` (answers at once) and `hang` (answers when released). */
async function rig(): Promise<Rig> {
  const server = new McpServer({ name: 'executor-test', version: '1' });
  const waiting: (() => void)[] = [];
  const input = { text: z.string() };
  server.registerTool('echo', { inputSchema: input }, ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'hang',
    { inputSchema: input },
    ({ text }) =>
      new Promise((resolve) => {
        waiting.push(() => {
          resolve({ content: [{ type: 'text', text }] });
        });
      }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const cancelled: unknown[] = [];
  let failure: { code: number; message: string; data?: unknown } | undefined;
  const deliver = serverSide.onmessage;
  serverSide.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && message.method === 'notifications/cancelled')
      cancelled.push(message.params?.requestId);
    if (failure && 'method' in message && 'id' in message) {
      const error = failure;
      failure = undefined;
      void serverSide.send({ jsonrpc: '2.0', id: message.id, error });
      return;
    }
    deliver?.(message);
  };
  const client = new Client({ name: 'executor-test', version: '1' });
  await client.connect(clientSide);
  const clock = new ManualClock();
  const executor = new Executor(client, clock);
  await executor.loadTools();
  const onWallClock = new Executor(client, systemClock);
  await onWallClock.loadTools();
  const made: Rig = {
    executor,
    clock,
    onWallClock,
    failNext: (error) => {
      failure = error;
    },
    cancelled,
    release: () => {
      for (const answer of waiting.splice(0)) answer();
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
  open.push(made);
  return made;
}

const request = (tool: string, text: string): CallRequest => ({
  tool,
  args: { text },
  meta: {},
  timeoutMs: 1_000,
});

/** Lets the in-memory transport deliver what is in flight. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Executor.call', () => {
  it('times out on its clock, cancelling that request alone and none answered before it', async () => {
    const { executor, clock, cancelled } = await rig();
    for (const text of ['a', 'b', 'c'])
      expect(await executor.call(request('echo', text))).toMatchObject({ kind: 'ok' });

    const hanging = executor.call(request('hang', 'd'));
    await settle();
    clock.fire();

    expect(await hanging).toMatchObject({ kind: 'no-reply', reason: 'timeout' });
    await settle();
    expect(cancelled).toHaveLength(1);
  });

  it('carries on after a timeout, and a later timeout cancels only the later request', async () => {
    const { executor, clock, cancelled } = await rig();
    const first = executor.call(request('hang', 'a'));
    await settle();
    clock.fire();
    await first;

    expect(await executor.call(request('echo', 'b'))).toMatchObject({ kind: 'ok' });
    const second = executor.call(request('hang', 'c'));
    await settle();
    clock.fire();

    expect(await second).toMatchObject({ kind: 'no-reply' });
    await settle();
    expect(cancelled).toHaveLength(2);
    expect(new Set(cancelled).size).toBe(2);
  });

  it.each([0, 1])(
    'times out one of two overlapping calls (timer %i) without touching the other',
    async (nth) => {
      const { executor, clock, cancelled, release } = await rig();
      const calls = [executor.call(request('hang', 'a')), executor.call(request('hang', 'b'))];
      await settle();

      clock.fire(nth);
      await settle();
      release();

      expect(await calls[nth]).toMatchObject({ kind: 'no-reply' });
      expect(await calls[1 - nth]).toMatchObject({ kind: 'ok', result: nth === 0 ? 'b' : 'a' });
      expect(cancelled).toHaveLength(1);
      expect(await executor.call(request('echo', 'c'))).toMatchObject({ kind: 'ok' });
    },
  );

  it('aborts the call in flight when the caller’s signal aborts', async () => {
    const { executor, cancelled } = await rig();
    const caller = new AbortController();
    const call = executor.call({ ...request('hang', 'a'), signal: caller.signal });
    await settle();

    caller.abort(new Error('stop'));

    expect(await call).toMatchObject({ kind: 'error' });
    await settle();
    expect(cancelled).toHaveLength(1);
    expect(await executor.call(request('echo', 'b'))).toMatchObject({ kind: 'ok' });
  });

  it('on the system clock, times out when no reply comes in time, cancelling that request alone', async () => {
    const { onWallClock, cancelled } = await rig();
    expect(await onWallClock.call(request('echo', 'a'))).toMatchObject({ kind: 'ok', result: 'a' });

    const outcome = await onWallClock.call({ ...request('hang', 'b'), timeoutMs: 20 });

    expect(outcome).toEqual({
      kind: 'no-reply',
      reason: 'timeout',
      message: 'no reply from hang within 20 ms',
    });
    await settle();
    expect(cancelled).toHaveLength(1);
    expect(await onWallClock.call(request('echo', 'c'))).toMatchObject({ kind: 'ok', result: 'c' });
  });

  it('on the system clock, takes a server’s error reply for what it is, even with the timeout code', async () => {
    const { onWallClock, failNext } = await rig();
    failNext({
      code: ErrorCode.RequestTimeout,
      message: 'upstream timed out',
      data: { timeout: 5 },
    });

    const outcome = await onWallClock.call(request('echo', 'a'));

    expect(outcome).toMatchObject({ kind: 'error', class: 'malformed_reply' });
    expect(await onWallClock.call(request('echo', 'b'))).toMatchObject({ kind: 'ok', result: 'b' });
  });

  it('on the system clock with the caller’s signal, still aborts the call in flight', async () => {
    const { onWallClock, cancelled } = await rig();
    const caller = new AbortController();
    const call = onWallClock.call({ ...request('hang', 'a'), signal: caller.signal });
    await settle();

    caller.abort(new Error('stop'));

    expect(await call).toMatchObject({ kind: 'error' });
    await settle();
    expect(cancelled).toHaveLength(1);
  });
});

describe('Executor.loadTools', () => {
  /** Serves `tools` (name → output schema shape, or none) and loads them into an executor. */
  async function loaded(
    tools: Record<string, z.ZodRawShape | undefined>,
  ): Promise<{ hash: string; listed: Awaited<ReturnType<Client['listTools']>>['tools'] }> {
    const server = new McpServer({ name: 'executor-test', version: '1' });
    for (const [name, output] of Object.entries(tools))
      server.registerTool(
        name,
        { inputSchema: { text: z.string() }, ...(output ? { outputSchema: output } : {}) },
        ({ text }) => ({ content: [{ type: 'text', text }], structuredContent: { text } }),
      );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'executor-test', version: '1' });
    await client.connect(clientSide);
    try {
      const hash = await new Executor(client, systemClock).loadTools();
      const { tools: listed } = await client.listTools();
      return { hash, listed };
    } finally {
      await client.close();
      await server.close();
    }
  }

  it('returns the canonical hash of the listed tools: names, input and output schemas', async () => {
    const { hash, listed } = await loaded({ echo: { text: z.string() }, plain: undefined });

    expect(hash).toBe(
      contentHash(
        listed.map((t) => ({ name: t.name, input: t.inputSchema, output: t.outputSchema ?? null })),
      ),
    );
  });

  it('tells apart tools that differ only in an output schema, or in which tool has it', async () => {
    const a = await loaded({ echo: { text: z.string() }, plain: undefined });
    const b = await loaded({ echo: { text: z.number() }, plain: undefined });
    const c = await loaded({ echo: undefined, plain: { text: z.string() } });
    const again = await loaded({ echo: { text: z.string() }, plain: undefined });

    expect(new Set([a.hash, b.hash, c.hash]).size).toBe(3);
    expect(again.hash).toBe(a.hash);
  });
});
