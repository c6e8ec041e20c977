import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createReplayServer,
  DIVERGENCE_META,
  loadCassette,
  recordMcp,
  saveCassette,
  type Cassette,
  type Divergence,
  type Replay,
} from '../../recordings/index.js';
import { canonicalJson } from '../../runtime/canonical-json.js';
import { META, toolErrorSchema } from '../../runtime/protocol.js';
import { connectInMemory, notesServer, runAgent, SCRIPT, type Call } from './notes-server.js';

const RECORDED_AT = '2025-06-01T12:00:00.000Z';

/** Records SCRIPT against a fresh live notes server; returns the live results and the server. */
async function record(): Promise<{
  cassette: Cassette;
  live: CallToolResult[];
  world: ReturnType<typeof notesServer>;
}> {
  const world = notesServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await world.server.connect(serverSide);
  let live: CallToolResult[] = [];
  const cassette = await recordMcp(
    { transport: clientSide, label: 'in-memory notes' },
    async (client) => {
      live = await runAgent(client, SCRIPT);
    },
    { recordedAt: RECORDED_AT },
  );
  return { cassette, live, world };
}

async function replayWith(
  cassette: Cassette,
  script: readonly Call[],
  onDivergence?: (d: Divergence) => void,
): Promise<{ replay: Replay; results: CallToolResult[] }> {
  const replay = createReplayServer(cassette, onDivergence ? { onDivergence } : {});
  const client = await connectInMemory(replay.server);
  try {
    return { replay, results: await runAgent(client, script) };
  } finally {
    await client.close();
  }
}

function errorOf(result: CallToolResult | undefined): { class: string; message: string } {
  return toolErrorSchema.parse(result?._meta?.[META.error]);
}

let recorded: Awaited<ReturnType<typeof record>>;
let loaded: Cassette;
beforeAll(async () => {
  recorded = await record();
  const path = join(mkdtempSync(join(tmpdir(), 'faultline-cassette-')), 'notes.json');
  await saveCassette(path, recorded.cassette);
  loaded = await loadCassette(path);
});

describe('record → save → load → replay (in memory)', () => {
  it('records every call in order, with occurrences for repeated identical calls', () => {
    const summary = loaded.interactions.map((i) =>
      i.kind === 'tool' ? [i.step, i.tool, i.canonicalArgs, i.occurrence] : [],
    );
    expect(summary).toEqual([
      [1, 'notes_count', '{}', 1],
      [2, 'notes_add', '{"text":"milk"}', 1],
      [3, 'notes_add', '{"text":"eggs"}', 1],
      [4, 'notes_count', '{}', 2],
      [5, 'notes_add', '{"text":"milk"}', 2],
      [6, 'notes_get', '{"id":99}', 1],
      [7, 'notes_get', '{"id":2}', 1],
    ]);
    expect(loaded.tools.map((t) => t.name)).toEqual(['notes_add', 'notes_count', 'notes_get']);
    expect(loaded.source).toEqual({ kind: 'mcp-transport', label: 'in-memory notes' });
    expect(loaded.server).toEqual({ name: 'notes', version: '0.1.0' });
    expect(loaded.recordedAt).toBe(RECORDED_AT);
  });

  it('gives the same client code identical results, uses the whole recording, and never reaches the live server', async () => {
    const before = recorded.world.calls();
    expect(before).toBe(SCRIPT.length);

    const { replay, results } = await replayWith(loaded, SCRIPT);

    expect(canonicalJson(results)).toBe(canonicalJson(recorded.live));
    // Repeated identical calls got their own recorded answers, not the first one's.
    expect(results[0]?.content).toEqual([{ type: 'text', text: '0' }]);
    expect(results[3]?.content).toEqual([{ type: 'text', text: '2' }]);
    expect(results[5]?.isError).toBe(true);
    expect(replay.divergence).toBeNull();
    expect(replay.remaining()).toEqual([]);
    expect(replay.calls).toBe(SCRIPT.length);
    expect(recorded.world.calls()).toBe(before);
  });

  it('offers the recorded tool schemas unchanged', async () => {
    const replay = createReplayServer(loaded);
    const client = await connectInMemory(replay.server);
    const { tools } = await client.listTools();
    await client.close();
    expect(canonicalJson(tools)).toBe(canonicalJson(loaded.tools));
    expect(tools.find((t) => t.name === 'notes_add')?.outputSchema?.required).toEqual([
      'id',
      'count',
    ]);
  });

  it('reports what is left when the agent stops early', async () => {
    const { replay } = await replayWith(loaded, SCRIPT.slice(0, 5));
    expect(replay.divergence).toBeNull();
    expect(replay.remaining().map((i) => i.step)).toEqual([6, 7]);
  });
});

describe('divergence', () => {
  it('names the step, the expected call and the actual call when an argument changes at call 3', async () => {
    const changed: Call[] = [...SCRIPT];
    changed[2] = ['notes_add', { text: 'bread' }];
    const seen: Divergence[] = [];

    const { replay, results } = await replayWith(loaded, changed, (d) => seen.push(d));

    expect(results.slice(0, 2).every((r) => r.isError !== true)).toBe(true);
    expect(results[2]?.isError).toBe(true);
    const error = errorOf(results[2]);
    expect(error.class).toBe('invalid_argument');
    expect(error.message).toBe(
      'replay divergence at step 3: expected notes_add {"text":"eggs"}, got notes_add {"text":"bread"}',
    );
    expect(replay.divergence).toMatchObject({
      step: 3,
      expected: { step: 3, tool: 'notes_add', arguments: { text: 'eggs' }, occurrence: 1 },
      actual: { tool: 'notes_add', arguments: { text: 'bread' }, occurrence: 1 },
    });
    expect(results[2]?._meta?.[DIVERGENCE_META]).toEqual(replay.divergence);
    expect(seen).toEqual([replay.divergence]);
  });

  it('fails every call after the first divergence, even ones that were recorded', async () => {
    const changed: Call[] = [...SCRIPT];
    changed[2] = ['notes_add', { text: 'bread' }];

    const { replay, results } = await replayWith(loaded, changed);

    expect(results.slice(3).map((r) => r.isError)).toEqual([true, true, true, true]);
    expect(errorOf(results[3]).message).toMatch(
      /^replay is over \(replay divergence at step 3: .*\); call 4 \(notes_count \{\}\) was not served$/,
    );
    expect(replay.divergence?.step).toBe(3);
    expect(replay.remaining()).toHaveLength(5);
  });

  it('catches a skipped call: the next call is not the one recorded', async () => {
    const skipped = SCRIPT.filter((_, i) => i !== 2);

    const { replay, results } = await replayWith(loaded, skipped);

    expect(results[2]?.isError).toBe(true);
    expect(replay.divergence).toMatchObject({
      step: 3,
      expected: { tool: 'notes_add', arguments: { text: 'eggs' } },
      actual: { tool: 'notes_count', arguments: {}, occurrence: 2 },
    });
  });

  it('matches on occurrence: a third identical call where two were recorded diverges', async () => {
    const extra: Call[] = [...SCRIPT.slice(0, 5), ['notes_add', { text: 'milk' }]];

    const { replay } = await replayWith(loaded, extra);

    expect(replay.divergence).toMatchObject({
      step: 6,
      expected: { tool: 'notes_get', arguments: { id: 99 } },
      actual: { tool: 'notes_add', arguments: { text: 'milk' }, occurrence: 3 },
    });
  });

  it('treats a call after the recording is used up as a divergence with nothing expected', async () => {
    const longer: Call[] = [...SCRIPT, ['notes_count', {}]];

    const { replay, results } = await replayWith(loaded, longer);

    expect(results[7]?.isError).toBe(true);
    expect(replay.divergence).toMatchObject({ step: 8, expected: null });
    expect(errorOf(results[7]).message).toBe(
      'replay divergence at step 8: expected the end of the recording (7 calls), got notes_count {}',
    );
    expect(replay.remaining()).toEqual([]);
  });
});

describe('a miss is an error, never a live call', () => {
  it('refuses a tool the cassette never saw, and the live server hears nothing', async () => {
    const before = recorded.world.calls();
    const notesBefore = [...recorded.world.notes];

    const { replay, results } = await replayWith(loaded, [['notes_delete', { id: 1 }]]);

    expect(results[0]?.isError).toBe(true);
    expect(errorOf(results[0]).message).toBe(
      'replay divergence at step 1: expected notes_count {}, got notes_delete {"id":1}',
    );
    expect(replay.divergence?.actual.tool).toBe('notes_delete');
    expect(recorded.world.calls()).toBe(before);
    expect(recorded.world.notes).toEqual(notesBefore);
  });
});
