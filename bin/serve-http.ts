import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UsageError } from './usage-error.js';

/** The path the MCP endpoint is served at. */
export const MCP_PATH = '/mcp';

/** A listening MCP endpoint. */
export interface HttpEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves one Streamable HTTP transport on 127.0.0.1 at {@link MCP_PATH}, each request
 * authorised by `Authorization: Bearer <token>`: missing or wrong, it is refused with 401
 * before the transport sees it. Port 0 takes any free port.
 *
 * @example
 * ```ts
 * const endpoint = await listenHttp(transport, { port: 0, token });
 * console.log(endpoint.url); // http://127.0.0.1:40123/mcp
 * ```
 */
export async function listenHttp(
  transport: StreamableHTTPServerTransport,
  options: { port: number; token: string },
): Promise<HttpEndpoint> {
  const expected = Buffer.from(`Bearer ${options.token}`);
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        refuse(res, 500, error instanceof Error ? error.message : String(error));
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== MCP_PATH) {
      refuse(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      refuse(
        res,
        401,
        req.headers.authorization === undefined
          ? 'unauthorized: send Authorization: Bearer <token> (the token serve printed)'
          : 'unauthorized: wrong bearer token',
      );
      return;
    }
    await transport.handleRequest(req, res);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new UsageError(`--port ${options.port}: the port is in use (0 takes any free port)`)
          : error,
      );
    });
    server.listen(options.port, '127.0.0.1', () => {
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        // Streams still open (a client's SSE stream) would hold the close forever.
        server.closeAllConnections();
      }),
  };
}

/** A JSON-RPC error body with an HTTP status, as the MCP transport answers errors. */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
}
