import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createReplayServer,
  InteractionLog,
  recordHttp,
  recordMcp,
  saveCassette,
  type Cassette,
  type HttpInteraction,
} from '../../recordings/index.js';
import { connectInMemory } from './notes-server.js';

const RECORDED_AT = '2025-06-01T12:00:00.000Z';

/** A loopback HTTP API (127.0.0.1 only): the network is never reached. */
let api: HttpServer;
let base: string;
let hits = 0;

beforeAll(async () => {
  api = createServer((req, res) => {
    hits += 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/rates') {
        res.writeHead(200, {
          'content-type': 'application/json',
          'set-cookie': 'session=SECRET-cookie',
        });
        res.end(JSON.stringify({ usd: 1, eur: 0.9 }));
      } else if (url.pathname === '/charges' && req.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { amount: number };
        res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ id: 'ch_1', amount: body.amount }));
      } else if (url.pathname === '/bytes') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.from([0xff, 0x00, 0xfe]));
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such page');
      }
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  api.closeAllConnections();
  await new Promise<void>((resolve) => {
    api.close(() => {
      resolve();
    });
  });
});

const httpOf = (cassette: Cassette): HttpInteraction['http'][] =>
  cassette.interactions.flatMap((i) => (i.kind === 'http' ? [i.http] : []));

describe('recordHttp', () => {
  it('records the calls a function makes, and the caller still gets whole responses', async () => {
    const original = globalThis.fetch;
    const seen: unknown[] = [];

    const cassette = await recordHttp(
      async () => {
        // Plain global fetch: the code under record knows nothing of the recorder.
        seen.push(await (await fetch(`${base}/rates?token=SECRET-query&day=1`)).json());
        const charge = await fetch(`${base}/charges`, {
          method: 'POST',
          headers: { authorization: 'Bearer SECRET-auth', 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 5, card: { token: 'SECRET-card' } }),
        });
        seen.push(await charge.json());
        seen.push([...new Uint8Array(await (await fetch(`${base}/bytes`)).arrayBuffer())]);
        seen.push(await (await fetch(`${base}/missing`)).text());
      },
      { recordedAt: RECORDED_AT },
    );

    expect(globalThis.fetch).toBe(original);
    expect(seen).toEqual([
      { usd: 1, eur: 0.9 },
      { id: 'ch_1', amount: 5 },
      [255, 0, 254],
      'no such page',
    ]);
    expect(cassette.source).toEqual({ kind: 'http' });
    const [rates, charge, bytes, missing] = httpOf(cassette);
    expect(rates).toMatchObject({
      method: 'GET',
      url: `${base}/rates?token=[REDACTED]&day=1`,
      status: 200,
      headers: { 'content-type': 'application/json', 'set-cookie': '[REDACTED]' },
      body: { json: { usd: 1, eur: 0.9 } },
    });
    expect(rates).not.toHaveProperty('requestBody');
    expect(charge).toMatchObject({
      method: 'POST',
      requestHeaders: { authorization: '[REDACTED]', 'content-type': 'application/json' },
      requestBody: { json: { amount: 5, card: { token: '[REDACTED]' } } },
      status: 201,
      body: { json: { id: 'ch_1', amount: 5 } },
    });
    expect(bytes?.body).toEqual({ base64: Buffer.from([0xff, 0x00, 0xfe]).toString('base64') });
    expect(missing).toMatchObject({ status: 404, body: { text: 'no such page' } });
    expect(cassette.interactions.map((i) => [i.step, i.occurrence])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
    ]);
  });

  it('never writes the Authorization header, cookies or secret query values to the file', async () => {
    const cassette = await recordHttp(
      async (recordingFetch) => {
        await recordingFetch(`${base}/rates?api_key=SECRET-q`, {
          headers: { Authorization: 'Bearer SECRET-header', Cookie: 'sid=SECRET-c' },
        });
      },
      { recordedAt: RECORDED_AT },
    );
    const path = join(mkdtempSync(join(tmpdir(), 'faultline-http-')), 'http.json');

    await saveCassette(path, cassette);

    const text = readFileSync(path, 'utf8');
    expect(text).toContain('"authorization": "[REDACTED]"');
    expect(text).not.toContain('SECRET');
  });

  it('with global: false, records only calls through the fetch it hands over', async () => {
    const before = hits;

    const cassette = await recordHttp(
      async (recordingFetch) => {
        await (await fetch(`${base}/rates`)).text();
        await (await recordingFetch(`${base}/bytes`)).arrayBuffer();
      },
      { recordedAt: RECORDED_AT, global: false },
    );

    expect(hits - before).toBe(2);
    expect(httpOf(cassette).map((h) => h.url)).toEqual([`${base}/bytes`]);
  });
});

describe('recording MCP and HTTP into one cassette', () => {
  it('interleaves a tool call and the HTTP call it made, and replay serves the tool calls', async () => {
    const server = new McpServer({ name: 'fx', version: '1.0.0' });
    server.registerTool('convert', { inputSchema: { amount: z.number() } }, async ({ amount }) => {
      const { eur } = (await (await fetch(`${base}/rates`)).json()) as { eur: number };
      return { content: [{ type: 'text', text: String(amount * eur) }] };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const log = new InteractionLog();
    let cassette: Cassette | undefined;

    await recordHttp(
      async () => {
        cassette = await recordMcp(
          { transport: clientSide },
          async (client) => {
            await client.callTool({ name: 'convert', arguments: { amount: 10 } });
          },
          { log, recordedAt: RECORDED_AT },
        );
      },
      { log, recordedAt: RECORDED_AT },
    );
    const replay = createReplayServer(cassette!);
    const client = await connectInMemory(replay.server);
    const replayed = await client.callTool({ name: 'convert', arguments: { amount: 10 } });
    await client.close();

    expect(cassette!.interactions.map((i) => [i.step, i.kind])).toEqual([
      [1, 'tool'],
      [2, 'http'],
    ]);
    expect(replayed.content).toEqual([{ type: 'text', text: '9' }]);
    expect(replay.remaining()).toEqual([]);
  });
});
