import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReplayServer,
  InteractionLog,
  loadCassette,
  RecordingTransport,
  recordMcp,
  saveCassette,
} from '../../recordings/index.js';
import { canonicalJson } from '../../runtime/canonical-json.js';
import { connectInMemory, notesServer, runAgent, SCRIPT, type Call } from './notes-server.js';

const RECORDED_AT = '2025-06-01T12:00:00.000Z';
const moduleUrl = (path: string): string =>
  pathToFileURL(fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url))).href;

/** A stdio notes server: each call it handles is appended to the file named by its first argument. */
const STDIO_SERVER = `
import { appendFileSync } from 'node:fs';
import { McpServer } from '${moduleUrl('@modelcontextprotocol/sdk/dist/esm/server/mcp.js')}';
import { StdioServerTransport } from '${moduleUrl('@modelcontextprotocol/sdk/dist/esm/server/stdio.js')}';
import { z } from '${moduleUrl('zod/index.js')}';

const calls = process.argv[2];
const notes = [];
const server = new McpServer({ name: 'stdio-notes', version: '1.0.0' });
server.registerTool('notes_add', { inputSchema: { text: z.string() } }, ({ text }) => {
  appendFileSync(calls, 'notes_add\\n');
  notes.push(text);
  return { content: [{ type: 'text', text: notes.length + ': ' + text }] };
});
server.registerTool('notes_count', {}, () => {
  appendFileSync(calls, 'notes_count\\n');
  return { content: [{ type: 'text', text: String(notes.length) }] };
});
await server.connect(new StdioServerTransport());
`;

const STDIO_SCRIPT: readonly Call[] = [
  ['notes_count', {}],
  ['notes_add', { text: 'milk' }],
  ['notes_add', { text: 'milk' }],
  ['notes_count', {}],
];

async function replayResults(cassettePath: string, script: readonly Call[]) {
  const replay = createReplayServer(await loadCassette(cassettePath));
  const client = await connectInMemory(replay.server);
  try {
    return { replay, results: await runAgent(client, script) };
  } finally {
    await client.close();
  }
}

describe('recordMcp over stdio', () => {
  it('records a spawned server, and replays it identically after the server is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faultline-stdio-'));
    const script = join(dir, 'server.mjs');
    const callLog = join(dir, 'calls.txt');
    writeFileSync(script, STDIO_SERVER);
    writeFileSync(callLog, '');
    let live: CallToolResult[] = [];

    const cassette = await recordMcp(
      { command: process.execPath, args: [script, callLog] },
      async (client) => {
        live = await runAgent(client, STDIO_SCRIPT);
      },
      { recordedAt: RECORDED_AT },
    );
    const path = join(dir, 'stdio.cassette.json');
    await saveCassette(path, cassette);
    const callsWhileLive = readFileSync(callLog, 'utf8');

    // recordMcp closed the client, which stopped the spawned server: replay has nothing live to reach.
    const { replay, results } = await replayResults(path, STDIO_SCRIPT);

    expect(callsWhileLive.trim().split('\n')).toHaveLength(4);
    expect(cassette.source).toEqual({
      kind: 'mcp-stdio',
      command: process.execPath,
      args: [script, callLog],
    });
    expect(cassette.interactions.map((i) => (i.kind === 'tool' ? i.occurrence : 0))).toEqual([
      1, 1, 2, 2,
    ]);
    expect(canonicalJson(results)).toBe(canonicalJson(live));
    expect(results[2]?.content).toEqual([{ type: 'text', text: '2: milk' }]);
    expect(replay.remaining()).toEqual([]);
    expect(replay.divergence).toBeNull();
    expect(readFileSync(callLog, 'utf8')).toBe(callsWhileLive);
  });
});

describe('recordMcp over Streamable HTTP (loopback)', () => {
  let http: HttpServer | undefined;
  afterEach(async () => {
    const server = http;
    http = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  });

  it('records a server at a URL through the same decorator', async () => {
    const world = notesServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await world.server.connect(transport);
    http = createServer((req, res) => void transport.handleRequest(req, res));
    await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/mcp?api_key=k-SECRET-1`;
    let live: CallToolResult[] = [];

    const cassette = await recordMcp(
      { url },
      async (client) => {
        live = await runAgent(client, SCRIPT);
      },
      { recordedAt: RECORDED_AT },
    );
    const path = join(mkdtempSync(join(tmpdir(), 'faultline-url-')), 'url.cassette.json');
    await saveCassette(path, cassette);
    const { replay, results } = await replayResults(path, SCRIPT);

    expect(world.calls()).toBe(SCRIPT.length);
    expect(canonicalJson(results)).toBe(canonicalJson(live));
    expect(replay.remaining()).toEqual([]);
    const saved = readFileSync(path, 'utf8');
    expect(saved).not.toContain('SECRET');
    expect((await loadCassette(path)).source).toEqual({
      kind: 'mcp-url',
      url: `http://127.0.0.1:${port}/mcp?api_key=[REDACTED]`,
    });
  });
});

describe('RecordingTransport', () => {
  it('records whatever client code drives it, including JSON-RPC errors and request _meta', async () => {
    const world = notesServer();
    const log = new InteractionLog();
    let recorder: RecordingTransport | undefined;
    const client: Client = await connectInMemory(world.server, (t) => {
      recorder = new RecordingTransport(t, log);
      return recorder;
    });

    await client.callTool({
      name: 'notes_add',
      arguments: { text: 'hi' },
      _meta: { 'faultline/idempotency-key': 'k1' },
    });
    // The server refuses the bad argument with an error result, recorded like any other.
    await expect(
      client.callTool({ name: 'notes_add', arguments: { text: 1 } }),
    ).resolves.toMatchObject({ isError: true });
    await client.close();

    const interactions = log.interactions();
    expect(interactions.map((i) => i.kind === 'tool' && [i.step, i.tool, i.meta])).toEqual([
      [1, 'notes_add', { 'faultline/idempotency-key': 'k1' }],
      [2, 'notes_add', undefined],
    ]);
    expect(interactions[1]).toMatchObject({ arguments: { text: 1 }, result: { isError: true } });
    expect(recorder?.tools.size).toBe(0);
  });

  it('records a protocol error reply as `error`, and replay answers with the same error', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // A server that answers tools/call with a JSON-RPC error (as some servers do), through
    // low-level handlers: McpServer's own tool handler would turn the error into a result.
    const bare = new McpServer({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
    bare.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'boom', inputSchema: { type: 'object' as const } }],
    }));
    bare.server.setRequestHandler(CallToolRequestSchema, () => {
      throw new McpError(-32602, 'no such thing', { hint: 'x' });
    });
    await bare.connect(serverSide);

    let live: unknown;
    const cassette = await recordMcp(
      { transport: clientSide },
      async (client) => {
        live = await client.callTool({ name: 'boom', arguments: {} }).catch((e: unknown) => e);
      },
      { recordedAt: RECORDED_AT },
    );
    const replay = createReplayServer(cassette);
    const client = await connectInMemory(replay.server);
    const replayed = await client
      .callTool({ name: 'boom', arguments: {} })
      .catch((e: unknown) => e);
    await client.close();

    expect(live).toBeInstanceOf(McpError);
    expect(replayed).toBeInstanceOf(McpError);
    expect({ ...(replayed as object), message: (replayed as Error).message }).toEqual({
      ...(live as object),
      message: (live as Error).message,
    });
    expect(replayed).toMatchObject({ code: -32602, data: { hint: 'x' } });
    expect(cassette.interactions[0]).toMatchObject({
      kind: 'tool',
      tool: 'boom',
      error: { code: -32602, message: 'MCP error -32602: no such thing', data: { hint: 'x' } },
    });
    expect(replay.remaining()).toEqual([]);
  });
});
