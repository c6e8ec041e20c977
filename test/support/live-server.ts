import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WORLDS } from '../../scenarios/library/worlds.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { createWorldServer } from '../../scenarios/world/serve.js';
import type { World } from '../../scenarios/world/world.js';

/** A live MCP server on 127.0.0.1, for a live world to talk to; the world is its own state. */
export interface LiveServer {
  readonly url: string;
  /** The server's world: its ledger is what the live server changed. */
  readonly world: World<unknown>;
  /** The tool calls that reached the server, in order. */
  readonly calls: { tool: string; args: Record<string, unknown> }[];
  /** The headers of every HTTP request it was sent. */
  readonly headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * Serves a library world (refunds by default, on its scenario seed) as a real MCP server over
 * Streamable HTTP, one MCP session per client, refusing requests without `Authorization: Bearer
 * TOKEN` when a token is given. Every session shares the one world, as a live system's clients do.
 */
export async function startLiveServer(
  options: { world?: string; seed?: number; token?: string } = {},
): Promise<LiveServer> {
  const factory = WORLDS[options.world ?? 'refunds'];
  if (!factory) throw new Error(`no world ${String(options.world)}`);
  const world = factory.create({ seed: options.seed ?? 7, clock: new VirtualClock() });
  const { token: credential } = world.credentials.issue(
    'live',
    { tools: world.tools().map((t) => t.name), resources: {} },
    Number.MAX_SAFE_INTEGER,
  );
  const calls: LiveServer['calls'] = [];
  const headers: IncomingHttpHeaders[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const http = createServer((req, res) => {
    headers.push(req.headers);
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    const ready = (async () => {
      if (!transport) {
        const fresh = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, fresh);
          },
        });
        transport = fresh;
        const server = createWorldServer(world, { credential });
        servers.push(server);
        await server.connect(fresh);
        // What reached the server, as it received it.
        const deliver = fresh.onmessage;
        fresh.onmessage = (message, extra) => {
          if ('method' in message && message.method === 'tools/call') {
            const params = message.params as { name: string; arguments?: Record<string, unknown> };
            calls.push({ tool: params.name, args: params.arguments ?? {} });
          }
          deliver?.(message, extra);
        };
      }
      await transport.handleRequest(req, res);
    })();
    ready.catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    world,
    calls,
    headers,
    close: async () => {
      await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) =>
        http.close(() => {
          resolve();
        }),
      );
    },
  };
}
