import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  APPROVAL_TOKEN_META,
  META,
  toolErrorSchema,
  type ToolError,
} from '../../../runtime/protocol.js';
import { WORLDS } from '../../../scenarios/library/worlds.js';
import { RECORDED_WORLD } from '../../../scenarios/world/recorded-world.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import { contractInput } from '../../../scenarios/world/contract-arguments.js';
import { connectWorld, type WorldConnection } from '../../../scenarios/world/serve.js';
import { WorldError } from '../../../scenarios/world/world-error.js';
import { NotesWorld } from './notes-world.js';

let connection: WorldConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

/** A stock client on a connection the run's credential is bound to: it sends no `_meta`. */
async function stock(): Promise<{ world: NotesWorld; conn: WorldConnection }> {
  const world = new NotesWorld({ seed: 1, clock: new VirtualClock() });
  const { token } = world.credentials.issue(
    'run-1',
    { tools: ['read_note', 'write_note', 'publish', 'busy'], resources: {} },
    60_000,
  );
  connection = await connectWorld(world, { credential: token });
  return { world, conn: connection };
}

function call(
  conn: WorldConnection,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
): Promise<CallToolResult> {
  return conn.client.callTool({
    name,
    arguments: args,
    ...(meta ? { _meta: meta } : {}),
  }) as Promise<CallToolResult>;
}

function errorOf(result: CallToolResult): ToolError {
  expect(result.isError).toBe(true);
  return toolErrorSchema.parse(result._meta?.[META.error]);
}

describe('the contract arguments idempotency_key and approval_token', () => {
  it('are advertised where they apply: the key on writes that honour keys, the token on every write', async () => {
    const { conn } = await stock();

    const { tools } = await conn.client.listTools();
    const props = (name: string) =>
      Object.keys(tools.find((t) => t.name === name)?.inputSchema.properties ?? {});

    expect(props('write_note')).toEqual(['note_id', 'text', 'idempotency_key', 'approval_token']);
    expect(props('publish')).toEqual(['note_id', 'approval_token']);
    expect(props('read_note')).toEqual(['note_id']);
    expect(tools.find((t) => t.name === 'write_note')?.inputSchema.required).toEqual([
      'note_id',
      'text',
    ]);
  });

  it('dedupes a resend carrying the same idempotency_key argument, as the _meta key would', async () => {
    const { world, conn } = await stock();
    const args = { note_id: 'a', text: 'hello', idempotency_key: 'k-1' };

    const first = await call(conn, 'write_note', args);
    const again = await call(conn, 'write_note', args);
    // The same key sent the other way is the same key.
    const viaMeta = await call(
      conn,
      'write_note',
      { note_id: 'a', text: 'hello' },
      { [META.idempotencyKey]: 'k-1' },
    );

    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(viaMeta.structuredContent).toEqual(first.structuredContent);
    expect(world.ledger.entries()).toHaveLength(1);
    expect(world.ledger.entries()[0]?.idempotencyKey).toBe('k-1');
  });

  it('keeps the argument out of the handler and the fingerprint: other arguments under the same key conflict', async () => {
    const { world, conn } = await stock();

    await call(conn, 'write_note', { note_id: 'a', text: 'one', idempotency_key: 'k' });
    const clash = await call(conn, 'write_note', {
      note_id: 'a',
      text: 'two',
      idempotency_key: 'k',
    });

    expect(errorOf(clash).class).toBe('conflict');
    expect(world.ledger.entries().map((e) => e.effect)).toEqual([{ text: 'one' }]);
    expect(world.state.notes['a']).toBe('one');
  });

  it('refuses a key sent both ways with different values, and accepts the same value both ways', async () => {
    const { world, conn } = await stock();

    const clash = await call(
      conn,
      'write_note',
      { note_id: 'a', text: 'x', idempotency_key: 'k-arg' },
      { [META.idempotencyKey]: 'k-meta' },
    );
    const same = await call(
      conn,
      'write_note',
      { note_id: 'a', text: 'x', idempotency_key: 'k' },
      { [META.idempotencyKey]: 'k' },
    );

    expect(errorOf(clash)).toMatchObject({
      class: 'invalid_argument',
      message: expect.stringContaining('idempotency_key') as unknown,
    });
    expect(same.isError).toBeUndefined();
    expect(world.ledger.entries().map((e) => e.idempotencyKey)).toEqual(['k']);
  });

  it('redeems an approval_token argument as the _meta token, and refuses two different tokens', async () => {
    const { world, conn } = await stock();
    const grant = (): string =>
      world.approvals.grant({
        runId: 'run-1',
        tool: 'publish',
        identity: 'publish:a',
        approver: 'ops',
      }).token;
    const token = grant();

    const clash = await call(
      conn,
      'publish',
      { note_id: 'a', approval_token: token },
      { [APPROVAL_TOKEN_META]: grant() },
    );
    const ok = await call(conn, 'publish', { note_id: 'a', approval_token: token });
    const reused = await call(conn, 'publish', { note_id: 'a', approval_token: token });

    expect(errorOf(clash).class).toBe('invalid_argument');
    expect(ok.structuredContent).toEqual({ published: true });
    expect(world.ledger.entries()[0]?.approvalToken).toBe(token);
    expect(errorOf(reused)).toMatchObject({ class: 'forbidden' });
  });

  it('refuses an argument key that is not a string, for calls that do not come over MCP', () => {
    const world = new NotesWorld({ seed: 1, clock: new VirtualClock() });
    const { token } = world.credentials.issue('run-1', { tools: ['write_note'], resources: {} }, 1);

    let error: unknown;
    try {
      world.callTool(
        'write_note',
        { note_id: 'a', text: 'x', idempotency_key: 7 },
        { [META.credential]: token },
        1,
      );
    } catch (e) {
      error = e;
    }

    expect(error).toBeInstanceOf(WorldError);
    expect((error as WorldError).message).toBe('idempotency_key must be a string');
  });

  it.each(Object.keys(WORLDS).filter((w) => w !== RECORDED_WORLD))(
    'the %s world declares no argument of its own under a reserved name',
    (name) => {
      const world = WORLDS[name]!.create({ seed: 1, clock: new VirtualClock() });
      for (const tool of world.tools()) {
        const own = Object.keys(tool.input.shape);
        expect(own).not.toContain('idempotency_key');
        expect(own).not.toContain('approval_token');
        // Served with the contract's arguments on top, its own still required as before.
        const served = z.toJSONSchema(contractInput(tool), { io: 'input' });
        const required = z.toJSONSchema(tool.input, { io: 'input' }).required ?? [];
        expect(served.required ?? []).toEqual(required);
      }
    },
  );
});
