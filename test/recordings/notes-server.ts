import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A live notes server with a side effect per call, and a count of the calls it received. */
export interface NotesServer {
  server: McpServer;
  notes: string[];
  /** How many `tools/call` requests reached this server. */
  calls(): number;
}

export function notesServer(): NotesServer {
  const notes: string[] = [];
  let calls = 0;
  const server = new McpServer({ name: 'notes', version: '0.1.0' });
  server.registerTool(
    'notes_add',
    {
      description: 'Append a note',
      inputSchema: { text: z.string(), api_key: z.string().optional() },
      outputSchema: { id: z.number(), count: z.number() },
    },
    ({ text }) => {
      calls += 1;
      notes.push(text);
      const out = { id: notes.length, count: notes.length };
      return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
    },
  );
  server.registerTool('notes_count', { description: 'How many notes' }, () => {
    calls += 1;
    return { content: [{ type: 'text', text: String(notes.length) }] };
  });
  server.registerTool(
    'notes_get',
    { description: 'One note by id', inputSchema: { id: z.number().int() } },
    ({ id }) => {
      calls += 1;
      const note = notes[id - 1];
      return note === undefined
        ? {
            content: [{ type: 'text', text: `no note ${id}` }],
            isError: true,
            _meta: { 'faultline/error': { class: 'not_found', message: `no note ${id}` } },
          }
        : { content: [{ type: 'text', text: note }] };
    },
  );
  return { server, notes, calls: () => calls };
}

/** A client connected in memory to `server` (an `McpServer`, live or replaying). */
export async function connectInMemory(
  server: { connect(transport: Transport): Promise<void> },
  wrap: (t: Transport) => Transport = (t) => t,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(wrap(clientSide));
  return client;
}

export type Call = readonly [tool: string, args: Record<string, unknown>];

/**
 * The recorded agent's calls: repeated identical calls (`notes_count {}` twice with different
 * answers, `notes_add milk` twice) exercise `occurrence`; `notes_get 99` is an error result.
 */
export const SCRIPT: readonly Call[] = [
  ['notes_count', {}],
  ['notes_add', { text: 'milk' }],
  ['notes_add', { text: 'eggs' }],
  ['notes_count', {}],
  ['notes_add', { text: 'milk' }],
  ['notes_get', { id: 99 }],
  ['notes_get', { id: 2 }],
];

/** A scripted "agent": makes `script`'s calls in order and returns every result. */
export async function runAgent(client: Client, script: readonly Call[]): Promise<CallToolResult[]> {
  const results: CallToolResult[] = [];
  await client.listTools();
  for (const [name, args] of script) {
    results.push((await client.callTool({ name, arguments: args })) as CallToolResult);
  }
  return results;
}
