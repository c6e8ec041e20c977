import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadCassette, type RecordingIndex } from '../../recordings/index.js';
import { readResults } from '../../reports/results.js';
import { FAULTLINE_BIN, faultlineInProcess, ROOT, tempDir, type Ran } from '../support/cli.js';

const moduleUrl = (path: string): string =>
  pathToFileURL(fileURLToPath(new URL(`../../node_modules/${path}`, import.meta.url))).href;

/** A stdio live server: `refund` applies (logged to argv[2]) and never answers; `lookup` does. */
const STDIO_SERVER = `
import { appendFileSync } from 'node:fs';
import { McpServer } from '${moduleUrl('@modelcontextprotocol/sdk/dist/esm/server/mcp.js')}';
import { StdioServerTransport } from '${moduleUrl('@modelcontextprotocol/sdk/dist/esm/server/stdio.js')}';
import { z } from '${moduleUrl('zod/index.js')}';

const applied = process.argv[2];
const server = new McpServer({ name: 'ledger', version: '3.1.0' });
server.registerTool('refund', { inputSchema: { order: z.string() } }, ({ order }) => {
  appendFileSync(applied, order + '\\n');
  return new Promise(() => {});
});
server.registerTool(
  'lookup',
  { inputSchema: { order: z.string() }, annotations: { readOnlyHint: true } },
  ({ order }) => ({ content: [{ type: 'text', text: order + ': paid' }] }),
);
await server.connect(new StdioServerTransport());
`;

const TOKEN = 'front-token-5f2e9c';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) =>
    server.close(() => {
      r();
    }),
  );
  return port;
}

/** A client of the front at `port`, retried until the command listens. */
async function frontClient(
  port: number,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  for (let attempt = 0; ; attempt++) {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    });
    const client = new Client({ name: 'claude-code', version: '2.1.0' });
    try {
      await client.connect(transport);
      return { client, transport };
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

let tokenBefore: string | undefined;
beforeEach(() => {
  tokenBefore = process.env.FAULTLINE_TOKEN;
  process.env.FAULTLINE_TOKEN = TOKEN;
});
afterEach(() => {
  if (tokenBefore === undefined) delete process.env.FAULTLINE_TOKEN;
  else process.env.FAULTLINE_TOKEN = tokenBefore;
});

const readIndex = (dir: string): RecordingIndex =>
  JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as RecordingIndex;

describe('faultline record: an external client through the --port front', () => {
  it(
    'records a stdio live server: the answered call, the one the client gave up on, the index',
    { timeout: 30_000 },
    async () => {
      const dir = tempDir('record-front');
      const script = join(dir, 'server.mjs');
      const applied = join(dir, 'applied.txt');
      writeFileSync(script, STDIO_SERVER);
      writeFileSync(applied, '');
      const out = join(dir, 'recordings');
      const port = await freePort();
      const running = faultlineInProcess([
        'record',
        'refunds/partial-refund',
        '--server',
        `node '${script}'`,
        '--server-arg',
        applied,
        '--port',
        String(port),
        '--out',
        out,
        '--verdict',
        'pass',
      ]);
      const { client, transport } = await frontClient(port);
      const read = await client.callTool({ name: 'lookup', arguments: { order: 'A-1' } });
      await expect(
        client.callTool({ name: 'refund', arguments: { order: 'A-1' } }, undefined, {
          timeout: 200,
        }),
      ).rejects.toThrow(/timed out/i);
      await transport.terminateSession();
      await client.close();
      const ran: Ran = await running;

      expect(ran.status, ran.stderr).toBe(0);
      expect(read.content).toEqual([{ type: 'text', text: 'A-1: paid' }]);
      expect(readFileSync(applied, 'utf8')).toBe('A-1\n');
      const file = 'refunds__partial-refund.none.0.json';
      expect(ran.stderr).toMatch(
        /^\[1\/1\] recorded refunds\/partial-refund · claude-code 2\.1\.0 → ended \(the client closed the session\)$/m,
      );
      expect(ran.stdout).toContain(`${join(out, file)}: 2 tool call(s), 1 unanswered`);
      const cassette = await loadCassette(join(out, file));
      expect(cassette.source).toEqual({
        kind: 'mcp-stdio',
        command: 'node',
        args: [script, applied],
      });
      expect(cassette.server).toEqual({ name: 'ledger', version: '3.1.0' });
      expect(cassette.tools.map((t) => t.name)).toEqual(['refund', 'lookup']);
      const [lookup, refund] = cassette.interactions;
      expect(lookup).toMatchObject({
        tool: 'lookup',
        result: { content: [{ text: 'A-1: paid' }] },
      });
      expect(refund).toMatchObject({ tool: 'refund', arguments: { order: 'A-1' } });
      // Waited in wall time (time-scale 1): the client's 200 ms timeout.
      const waited = refund?.kind === 'tool' ? (refund.unanswered?.waitedMs ?? -1) : -1;
      expect(waited).toBeGreaterThanOrEqual(150);
      expect(waited).toBeLessThan(5_000);
      expect(cassette.session).toMatchObject({
        runId: 'refunds/partial-refund#none#0',
        scenario: { id: 'refunds/partial-refund' },
        faultPlanId: 'none',
        agent: { name: 'claude-code', version: '2.1.0' },
        verdict: 'pass',
        verdictSource: '--verdict',
        modelCassette: null,
      });
      expect(readIndex(out).sessions).toEqual([
        expect.objectContaining({ file, toolCalls: 2, unanswered: 1, agent: 'claude-code' }),
      ]);
      expect(readdirSync(out).sort()).toEqual(['index.json', file]);
    },
  );

  it(
    'records a Streamable HTTP live server reached with a secret header, and writes no header value',
    { timeout: 30_000 },
    async () => {
      const secret = 'live-api-key-91c7d2';
      const live = new McpServer({ name: 'crm', version: '1.0.0' });
      live.registerTool('find', { inputSchema: { q: z.string() } }, ({ q }) => ({
        content: [{ type: 'text', text: `found ${q}` }],
      }));
      const liveTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
      });
      await live.connect(liveTransport);
      const seen: (string | undefined)[] = [];
      const http: Server = createServer((req, res) => {
        seen.push(req.headers['x-api-key'] as string | undefined);
        if (req.headers['x-api-key'] !== secret) {
          res.statusCode = 401;
          res.end();
          return;
        }
        void liveTransport.handleRequest(req, res);
      });
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      const livePort = (http.address() as AddressInfo).port;
      try {
        const out = join(tempDir('record-url'), 'recordings');
        const port = await freePort();
        const running = faultlineInProcess([
          'record',
          'crm/merge-duplicates',
          '--url',
          `http://127.0.0.1:${livePort}/mcp?token=query-secret-77`,
          '--header',
          `X-Api-Key: ${secret}`,
          '--port',
          String(port),
          '--out',
          out,
          '--run-id',
          'crm/prod-incident#none#7',
          '--live-plan',
          'prod',
        ]);
        const { client, transport } = await frontClient(port);
        await client.callTool({ name: 'find', arguments: { q: 'ada' } });
        await transport.terminateSession();
        await client.close();
        const ran = await running;

        expect(ran.status, ran.stderr).toBe(0);
        expect(seen.length).toBeGreaterThan(0);
        expect(seen.every((v) => v === secret)).toBe(true);
        const path = join(out, 'crm__prod-incident.none.7.json');
        const text = readFileSync(path, 'utf8');
        expect(text).not.toContain(secret);
        expect(text).not.toContain('query-secret-77');
        const cassette = await loadCassette(path);
        expect(cassette.source).toEqual({
          kind: 'mcp-url',
          url: `http://127.0.0.1:${livePort}/mcp?token=[REDACTED]`,
        });
        expect(cassette.interactions).toEqual([
          expect.objectContaining({
            tool: 'find',
            result: { content: [{ type: 'text', text: 'found ada' }] },
          }),
        ]);
        expect(cassette.session).toMatchObject({ faultPlanId: 'prod', verdict: null });
      } finally {
        await new Promise<void>((r) => {
          http.close(() => {
            r();
          });
          http.closeAllConnections();
        });
      }
    },
  );

  it(
    'ends after --idle when no client comes, and writes no session',
    { timeout: 30_000 },
    async () => {
      const dir = tempDir('record-idle');
      const script = join(dir, 'server.mjs');
      writeFileSync(script, STDIO_SERVER);
      const out = join(dir, 'recordings');
      const ran = await faultlineInProcess([
        'record',
        'refunds/partial-refund',
        '--server',
        `node ${script} ${join(dir, 'applied.txt')}`,
        '--port',
        String(await freePort()),
        '--idle',
        '1',
        '--out',
        out,
      ]);
      expect(ran.status).toBe(1);
      expect(ran.stderr).toMatch(
        /no MCP client completed initialize before the session ended \(no message from the client for 1 s\); nothing written/,
      );
      expect(existsSync(join(out, 'index.json'))).toBe(false);
    },
  );
});

describe('faultline record --stdio: a stock MCP client spawns the recorder, which spawns the live server', () => {
  it(
    'passes the session through with stdout kept for MCP, and records it when the client closes stdin',
    { timeout: 120_000 },
    async () => {
      const dir = tempDir('record-stdio');
      const out = join(dir, 'recordings');
      const served = join(dir, 'served');
      const ran = spawnSync(
        process.execPath,
        [
          join(ROOT, 'test/fixtures/mcp-client.js'),
          '--',
          process.execPath,
          FAULTLINE_BIN,
          'record',
          'refunds/partial-refund',
          '--stdio',
          '--server',
          `node '${FAULTLINE_BIN}' serve refunds/partial-refund --stdio --time-scale 0.001 --out '${served}'`,
          '--out',
          out,
        ],
        { cwd: ROOT, encoding: 'utf8', timeout: 100_000, env: { ...process.env, NO_COLOR: '1' } },
      );

      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stderr).toContain('faultline record: recording "node" for a client on stdio');
      // The client saw the live server's own tools and instructions, through the proxy.
      const { results } = readResults(served);
      expect(results).toEqual([expect.objectContaining({ agent: 'fixture-client', pass: true })]);
      const index = readIndex(out);
      expect(index.sessions).toEqual([
        expect.objectContaining({ agent: 'fixture-client', toolCalls: results[0]?.figures.calls }),
      ]);
      const cassette = await loadCassette(join(out, index.sessions[0]?.file ?? ''));
      expect(cassette.session?.outcome.detail).toBe('the client closed stdin');
      expect(cassette.interactions.map((i) => (i.kind === 'tool' ? i.tool : i.kind))).toContain(
        'issue_refund',
      );
    },
  );
});

describe('faultline record --help', () => {
  it('names both live sides, the three agent sides and the folder it writes', async () => {
    const ran = await faultlineInProcess(['record', '--help']);
    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(
      /^Usage: faultline record SCENARIO \(--server "CMD ARGS…" \| --url URL\)/,
    );
    for (const flag of [
      '--agent NAME|PATH',
      '--stdio',
      '--port N',
      '--header',
      '--live-plan',
      '--verdict',
      '--force',
    ])
      expect(ran.stdout).toContain(flag);
    expect((await faultlineInProcess(['--help'])).stdout).toContain('record SCENARIO');
  });
});

describe('faultline record: bad input, one line each, nothing written', () => {
  const scenario = 'refunds/partial-refund';
  const server = ['--server', 'node server.mjs'];
  const cases: [string, string[], RegExp][] = [
    ['no live side', [scenario, '--stdio'], /choose one live server: --server .* or --url URL/],
    [
      'two live sides',
      [scenario, ...server, '--url', 'http://x/mcp', '--stdio'],
      /choose one live server/,
    ],
    ['no agent side', [scenario, ...server], /choose one agent side/],
    ['two agent sides', [scenario, ...server, '--stdio', '--port', '0'], /choose one agent side/],
    ['no scenario', [...server, '--stdio'], /expected one scenario id/],
    [
      'an unknown scenario',
      ['refunds/nope', ...server, '--stdio'],
      /unknown scenario "refunds\/nope"/,
    ],
    [
      'an unclosed quote',
      [scenario, '--server', "node 'server.mjs", '--stdio'],
      /--server: unclosed '/,
    ],
    [
      'a header without a name',
      [scenario, '--url', 'http://127.0.0.1:1/mcp', '--header', 'secret-value', '--stdio'],
      /--header #1 must be 'Name: value'/,
    ],
    [
      'a header with a stdio server',
      [scenario, ...server, '--header', 'A: b', '--stdio'],
      /--header goes with --url/,
    ],
    [
      'a bad verdict',
      [scenario, ...server, '--stdio', '--verdict', 'ok'],
      /--verdict must be pass or fail \(got "ok"\)/,
    ],
    [
      'a model flag for a front',
      [scenario, ...server, '--stdio', '--model', 'openai:gpt-4o'],
      /--model: only for an agent faultline runs/,
    ],
    [
      'a bad time scale',
      [scenario, ...server, '--stdio', '--time-scale', '2'],
      /--time-scale must be a number above 0 and at most 1/,
    ],
    ['a bad mode', [scenario, ...server, '--stdio', '--mode', 'yolo'], /--mode must be one of/],
  ];
  for (const [name, args, pattern] of cases) {
    it(`refuses ${name}`, async () => {
      const out = join(tempDir('record-bad'), 'recordings');
      const ran = await faultlineInProcess(['record', ...args, '--out', out]);
      expect(ran.status).toBe(2);
      const lines = ran.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^faultline record: /);
      expect(lines[0]).toMatch(pattern);
      expect(existsSync(out)).toBe(false);
    });
  }

  it('refuses a live server that cannot start, and leaves no folder behind', async () => {
    const out = join(tempDir('record-nostart'), 'recordings');
    const ran = await faultlineInProcess([
      'record',
      scenario,
      '--server',
      'faultline-no-such-server --x',
      '--port',
      String(await freePort()),
      '--out',
      out,
    ]);
    expect(ran.status).toBe(2);
    expect(ran.stderr.trimEnd()).toBe(
      'faultline record: --server: could not start the live server (spawn faultline-no-such-server ENOENT)',
    );
    expect(existsSync(out)).toBe(false);
  });

  it('never shows a header value it refuses', async () => {
    const ran = await faultlineInProcess([
      'record',
      scenario,
      '--url',
      'http://127.0.0.1:1/mcp',
      '--header',
      'Bearer sk-abcdefgh12345678',
      '--stdio',
    ]);
    expect(ran.status).toBe(2);
    expect(ran.stderr).not.toContain('abcdefgh');
  });

  it('refuses a folder whose index is malformed, and a run id already recorded, before the live server starts', async () => {
    const dir = tempDir('record-index');
    const marker = join(dir, 'started.txt');
    // A live server that leaves a mark when started: it must never be.
    const script = join(dir, 'server.mjs');
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x');`,
    );
    writeFileSync(
      join(dir, 'index.json'),
      '{"format":"faultline-recordings","version":1,"sessions":[{}]}',
    );
    const bad = await faultlineInProcess([
      'record',
      scenario,
      '--server',
      `node ${script}`,
      '--stdio',
      '--out',
      dir,
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/recordings index .*index\.json: sessions\[0\]/);

    writeFileSync(
      join(dir, 'index.json'),
      JSON.stringify({
        format: 'faultline-recordings',
        version: 1,
        sessions: [
          {
            file: 'refunds__partial-refund.none.0.json',
            runId: 'refunds/partial-refund#none#0',
            scenarioId: scenario,
            faultPlanId: 'none',
            agent: 'reference',
            mode: 'bounded',
            recordedAt: '2026-12-01T22:00:00.000Z',
            toolCalls: 3,
            unanswered: 0,
            verdict: null,
          },
        ],
      }),
    );
    const twice = await faultlineInProcess([
      'record',
      scenario,
      '--server',
      `node ${script}`,
      '--stdio',
      '--out',
      dir,
    ]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(
      /session refunds\/partial-refund#none#0 is already recorded .*--force/,
    );
    expect(existsSync(marker)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['index.json', 'server.mjs']);
  });
});
