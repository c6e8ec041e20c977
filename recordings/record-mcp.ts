import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { createCassette, type Cassette, type CassetteSource } from './cassette.js';
import { InteractionLog } from './interaction-log.js';
import type { RedactOptions } from './redact.js';
import { RecordingTransport } from './recording-transport.js';

/** The live MCP server to record: a command to spawn, a Streamable HTTP URL, or any transport. */
export type McpTarget =
  | { command: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string }
  | { url: string | URL; requestInit?: RequestInit }
  /** `label` names the transport in the cassette's `source`. */
  | { transport: Transport; label?: string };

export interface RecordMcpOptions {
  /** When the recording was made; the wall clock at the start when omitted. */
  recordedAt?: string | Date;
  /** Used for a new log; ignored when `log` is given (the log redacts with its own). */
  redaction?: RedactOptions;
  /** A log shared with other recorders, to interleave e.g. HTTP calls into the same cassette. */
  log?: InteractionLog;
  clientInfo?: Implementation;
}

function open(target: McpTarget): { transport: Transport; source: CassetteSource } {
  if ('transport' in target)
    return {
      transport: target.transport,
      source: { kind: 'mcp-transport', label: target.label ?? 'caller-supplied transport' },
    };
  if ('url' in target)
    return {
      transport: new StreamableHTTPClientTransport(
        new URL(target.url),
        target.requestInit === undefined ? {} : { requestInit: target.requestInit },
      ),
      source: { kind: 'mcp-url', url: String(target.url) },
    };
  const args = [...(target.args ?? [])];
  return {
    transport: new StdioClientTransport({
      command: target.command,
      args,
      ...(target.env === undefined ? {} : { env: target.env }),
      ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
    }),
    source: { kind: 'mcp-stdio', command: target.command, args },
  };
}

/**
 * Connects a real MCP client to a live server, lets `run` drive it, and returns what was
 * said as a cassette: the server's tool list and every `tools/call` with its result (or
 * JSON-RPC error, or `unanswered` when it got no reply), in the order the calls were made,
 * secrets redacted. The client is closed
 * (and a spawned server stopped) however `run` ends; if `run` throws, so does this.
 *
 * @example
 * ```ts
 * const cassette = await recordMcp({ command: 'node', args: ['notes-server.js'] }, async (client) => {
 *   await client.callTool({ name: 'notes_add', arguments: { text: 'hi' } });
 * });
 * await saveCassette('notes.cassette.json', cassette);
 * ```
 */
export async function recordMcp(
  target: McpTarget,
  run: (client: Client) => Promise<void>,
  options: RecordMcpOptions = {},
): Promise<Cassette> {
  const recordedAt = options.recordedAt ?? new Date().toISOString();
  const { transport, source } = open(target);
  const recorder = new RecordingTransport(
    transport,
    options.log ?? new InteractionLog(options.redaction),
  );
  const client = new Client(options.clientInfo ?? { name: 'faultline-recorder', version: '1.0.0' });
  await client.connect(recorder);
  let server: { name: string; version: string } | undefined;
  try {
    const info = client.getServerVersion();
    if (info) server = { name: info.name, version: info.version };
    // Listed through the recorder, which keeps every page as the cassette's catalogue.
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    await run(client);
  } finally {
    await client.close();
  }
  return createCassette({
    recordedAt,
    source,
    ...(server === undefined ? {} : { server }),
    tools: [...recorder.tools.values()],
    interactions: recorder.log.interactions(),
  });
}
