import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { WORLDS } from '../../../scenarios/library/worlds.js';
import { RECORDED_WORLD } from '../../../scenarios/world/recorded-world.js';
import type { World } from '../../../scenarios/world/world.js';
import { META, toolErrorSchema, type ToolError } from '../../../runtime/protocol.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import { contractInput } from '../../../scenarios/world/contract-arguments.js';
import { connectWorld, type WorldConnection } from '../../../scenarios/world/serve.js';
import { NotesWorld } from './notes-world.js';

let connection: WorldConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

async function setup(): Promise<{
  world: NotesWorld;
  conn: WorldConnection;
  meta: Record<string, unknown>;
}> {
  const world = new NotesWorld({ seed: 1, clock: new VirtualClock() });
  const { token } = world.credentials.issue(
    'run-1',
    { tools: ['read_note', 'write_note', 'busy'], resources: {} },
    60_000,
  );
  connection = await connectWorld(world);
  await connection.client.listTools(); // lets the client validate structured output too
  return { world, conn: connection, meta: { [META.credential]: token } };
}

function errorOf(result: CallToolResult): ToolError {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return toolErrorSchema.parse(result._meta?.[META.error]);
}

describe('createWorldServer / connectWorld', () => {
  it('lists every tool with its schemas and a read-only hint for non-writes', async () => {
    const { conn } = await setup();

    const { tools } = await conn.client.listTools();

    expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([
      ['read_note', true],
      ['write_note', false],
      ['publish', false],
      ['busy', true],
    ]);
    expect(tools[1]?.inputSchema.required).toEqual(['note_id', 'text']);
    expect(tools[1]?.outputSchema?.properties).toHaveProperty('version');
  });

  it.each(Object.keys(WORLDS).filter((w) => w !== RECORDED_WORLD))(
    'lists the %s world exactly as the SDK itself would, however often it is asked',
    async (name) => {
      const world = WORLDS[name]!.create({ seed: 1, clock: new VirtualClock() });
      const stock = await stockToolList(world);

      connection = await connectWorld(world);
      const first = await connection.client.listTools();
      first.tools[0]!.inputSchema.properties = {}; // a client changing what it got …
      const second = await connection.client.listTools();

      expect(second).toEqual(stock); // … changes nothing for the next one
    },
  );

  it('binds the run credential to the connection: a stock client sends no _meta, a presented one still wins', async () => {
    const world = new NotesWorld({ seed: 1, clock: new VirtualClock() });
    const { token } = world.credentials.issue(
      'run-1',
      { tools: ['read_note', 'write_note'], resources: {} },
      60_000,
    );
    connection = await connectWorld(world, { credential: token });

    const bound = (await connection.client.callTool({
      name: 'write_note',
      arguments: { note_id: 'a', text: 'hello' },
    })) as CallToolResult;
    const wrong = (await connection.client.callTool({
      name: 'read_note',
      arguments: { note_id: 'a' },
      _meta: { [META.credential]: 'not-a-token' },
    })) as CallToolResult;
    await connection.close();
    connection = await connectWorld(world);
    const unbound = (await connection.client.callTool({
      name: 'read_note',
      arguments: { note_id: 'a' },
    })) as CallToolResult;

    expect(bound.isError).toBeUndefined();
    expect(world.ledger.entries().map((e) => e.runId)).toEqual(['run-1']);
    expect(errorOf(wrong).class).toBe('unauthenticated');
    expect(errorOf(unbound)).toMatchObject({
      class: 'unauthenticated',
      message: 'no credential presented',
    });
  });

  it('returns structured content and the same JSON as text on success', async () => {
    const { conn, meta } = await setup();

    const result = (await conn.client.callTool({
      name: 'write_note',
      arguments: { note_id: 'a', text: 'hello' },
      _meta: meta,
    })) as CallToolResult;

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ note_id: 'a', version: 1 });
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ note_id: 'a', version: 1 }) },
    ]);
    expect(result._meta?.[META.trust]).toBeUndefined();
  });

  it('marks results of untrusted tools in _meta', async () => {
    const { conn, meta } = await setup();

    const result = (await conn.client.callTool({
      name: 'read_note',
      arguments: { note_id: 'welcome' },
      _meta: meta,
    })) as CallToolResult;

    expect(result._meta?.[META.trust]).toBe('untrusted');
  });

  it('carries a typed error, with retry-after, in _meta and not in structured content', async () => {
    const { conn, meta } = await setup();

    const result = (await conn.client.callTool({
      name: 'busy',
      arguments: {},
      _meta: meta,
    })) as CallToolResult;

    expect(errorOf(result)).toEqual({
      class: 'rate_limited',
      message: 'try again later',
      retryAfterMs: 2_000,
    });
    expect(result.content).toEqual([{ type: 'text', text: 'try again later' }]);
  });

  it('reads the credential from request _meta', async () => {
    const { conn } = await setup();

    const result = (await conn.client.callTool({ name: 'busy', arguments: {} })) as CallToolResult;

    expect(errorOf(result).class).toBe('unauthenticated');
  });

  it('attributes effects to the JSON-RPC id of the request', async () => {
    const { world, conn, meta } = await setup();

    await conn.client.callTool({
      name: 'write_note',
      arguments: { note_id: 'a', text: 'x' },
      _meta: meta,
    });
    await conn.client.callTool({
      name: 'write_note',
      arguments: { note_id: 'b', text: 'x' },
      _meta: meta,
    });

    const ids = world.ledger.entries().map((e) => e.requestId);
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => /^\d+$/.test(id))).toBe(true);
    expect(Number(ids[1])).toBeGreaterThan(Number(ids[0]));
  });

  it('lets the SDK reject arguments that break the input schema before the world sees them', async () => {
    const { world, conn, meta } = await setup();

    const result = (await conn.client.callTool({
      name: 'write_note',
      arguments: { note_id: 'a', text: 42 },
      _meta: meta,
    })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Input validation error') as unknown,
    });
    expect(result._meta?.[META.error]).toBeUndefined();
    expect(world.ledger.entries()).toEqual([]);
  });
});

/** What an unmodified McpServer lists for the world's tools, registered as createWorldServer does. */
async function stockToolList(world: World<unknown>): Promise<unknown> {
  const server = new McpServer({ name: 'stock', version: '0' });
  for (const tool of world.tools()) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: contractInput(tool),
        outputSchema: tool.output,
        annotations: { readOnlyHint: tool.kind !== 'write' },
      },
      () => ({ content: [] }),
    );
  }
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'stock', version: '0' });
  await client.connect(a);
  try {
    return await client.listTools();
  } finally {
    await client.close();
    await server.close();
  }
}
