import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** A live MCP server: a command to spawn (MCP over its stdio) or a Streamable HTTP URL. */
export type LiveTarget =
  | { readonly command: string; readonly args?: readonly string[] }
  | { readonly url: string; readonly headers?: Readonly<Record<string, string>> };

/** A client transport to `target`; a spawned server gets faultline's whole environment. */
export function openLiveTransport(target: LiveTarget): Transport {
  if ('url' in target)
    return new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: { ...target.headers } },
    });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return new StdioClientTransport({
    command: target.command,
    args: [...(target.args ?? [])],
    env,
    stderr: 'inherit',
  });
}
