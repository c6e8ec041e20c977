import { afterEach, describe, expect, it } from 'vitest';
import { META } from '../../../runtime/protocol.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import {
  ExternalWorld,
  type ExternalAnswer,
  type ExternalCall,
  type ListedTool,
} from '../../../scenarios/world/external-world.js';
import { connectWorld, type WorldConnection } from '../../../scenarios/world/serve.js';

const LISTED: ListedTool[] = [
  {
    name: 'get_note',
    description: 'Reads a note',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^n_' } },
      required: ['id'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'add_note',
    description: 'Adds a note',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
];

/** An external world answering from a function, remembering what it was forwarded. */
class EchoWorld extends ExternalWorld<{ forwarded: number }> {
  readonly name = 'echo';
  readonly seen: ExternalCall[] = [];
  constructor() {
    super({ seed: 1, clock: new VirtualClock() }, { forwarded: 0 });
  }
  listedTools(): readonly ListedTool[] {
    return LISTED;
  }
  protected forward(call: ExternalCall): Promise<ExternalAnswer> {
    this.seen.push(call);
    this.state.forwarded++;
    return Promise.resolve({
      result: {
        content: [{ type: 'text', text: `${call.tool} ok` }],
        structuredContent: { ok: true, tool: call.tool },
      },
    });
  }
}

let connection: WorldConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

async function setup(tools = ['get_note', 'add_note']): Promise<{ world: EchoWorld }> {
  const world = new EchoWorld();
  const { token } = world.credentials.issue('run-1', { tools, resources: {} }, 60_000);
  connection = await connectWorld(world, { credential: token });
  return { world };
}

describe('an external world', () => {
  it('lists the tools verbatim and takes their kinds from readOnlyHint', async () => {
    const { world } = await setup();
    const { tools } = await connection!.client.listTools();
    expect(tools.map((t) => [t.name, t.inputSchema])).toEqual(
      LISTED.map((t) => [t.name, t.inputSchema]),
    );
    expect(world.tools().map((t) => [t.name, t.kind])).toEqual([
      ['get_note', 'read'],
      ['add_note', 'write'],
    ]);
  });

  it('forwards the result as the server sent it, without faultline’s credential in _meta', async () => {
    const { world } = await setup();
    const result = await connection!.client.callTool({
      name: 'get_note',
      arguments: { id: 'n_1' },
      _meta: { trace: 'abc' },
    });
    expect(result.structuredContent).toEqual({ ok: true, tool: 'get_note' });
    expect(world.seen[0]?.meta).toEqual({ trace: 'abc' });
    expect(Object.keys(world.seen[0]?.meta ?? {})).not.toContain(META.credential);
    expect(world.ledger.size).toBe(0);
  });

  it('puts an applied write in the ledger once per idempotency key', async () => {
    const { world } = await setup();
    const send = (key: string): Promise<unknown> =>
      connection!.client.callTool({
        name: 'add_note',
        arguments: { text: 'milk' },
        _meta: { [META.idempotencyKey]: key },
      });
    await send('k1');
    await send('k1');
    await send('k2');
    expect(world.state.forwarded).toBe(3);
    expect(world.ledger.entries().map((e) => [e.identity, e.idempotencyKey])).toEqual([
      ['add_note {"text":"milk"}', 'k1'],
      ['add_note {"text":"milk"}', 'k2'],
    ]);
  });

  it('refuses a call outside the credential before forwarding it', async () => {
    const { world } = await setup(['get_note']);
    const result = await connection!.client.callTool({ name: 'add_note', arguments: {} });
    expect(result.isError).toBe(true);
    expect((result._meta?.[META.error] as { class: string }).class).toBe('forbidden');
    expect(world.seen).toEqual([]);
  });
});
