import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Readable, Writable } from 'node:stream';
import { createWorldServer } from '../world/serve.js';
import type { World } from '../world/world.js';

/** A world served to an agent in another process, over a pair of byte streams. */
export interface StreamWorldConnection {
  readonly server: McpServer;
  readonly serverTransport: StdioServerTransport;
  close(): Promise<void>;
}

/**
 * Serves a world's tools as MCP JSON-RPC lines over `input` and `output` — a child process's
 * stdout and stdin — with the same server and the same transport decoration as
 * `connectWorld`, so wire faults act alike in process and across it. The agent's client lives
 * at the other end and connects on its own.
 *
 * @example
 * ```ts
 * const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'inherit', 'ipc'] });
 * const { close } = await connectWorldOverStreams(world, child.stdout, child.stdin);
 * ```
 */
export async function connectWorldOverStreams(
  world: World<unknown>,
  input: Readable,
  output: Writable,
  options: {
    wrapServerTransport?: (transport: Transport) => Transport;
    /** The run's credential token, bound to this connection (the child's calls need not send it). */
    credential?: string;
  } = {},
): Promise<StreamWorldConnection> {
  const server = createWorldServer(
    world,
    options.credential === undefined ? {} : { credential: options.credential },
  );
  const serverTransport = new StdioServerTransport(input, output);
  await server.connect(
    options.wrapServerTransport ? options.wrapServerTransport(serverTransport) : serverTransport,
  );
  return {
    server,
    serverTransport,
    close: () => server.close(),
  };
}
