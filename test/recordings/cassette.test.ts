import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import {
  createCassette,
  createReplayServer,
  formatCassette,
  loadCassette,
  parseCassette,
  recordMcp,
  saveCassette,
  type Cassette,
} from '../../recordings/index.js';
import { InvalidInputError } from '../../runtime/errors.js';
import { connectInMemory, notesServer } from './notes-server.js';

const RECORDED_AT = '2025-06-01T12:00:00.000Z';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'faultline-cassette-'));
}

function sample(): Cassette {
  return createCassette({
    recordedAt: RECORDED_AT,
    source: { kind: 'mcp-stdio', command: 'node', args: ['notes.js'] },
    tools: [{ name: 'notes_add', inputSchema: { type: 'object' } }],
    interactions: [
      { kind: 'tool', tool: 'notes_add', arguments: { text: 'a' }, result: { content: [] } },
      { kind: 'tool', tool: 'notes_add', arguments: { text: 'a' }, result: { content: [] } },
      { kind: 'model', request: { prompt: 'next?' }, reply: { text: 'done' } },
    ],
  });
}

/** Writes `text` as a cassette file and returns the error loading it throws. */
async function loadError(text: string): Promise<InvalidInputError> {
  const path = join(tempDir(), 'bad.json');
  writeFileSync(path, text);
  const error: unknown = await loadCassette(path).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidInputError);
  const invalid = error as InvalidInputError;
  expect(invalid.message).toContain(`cassette ${path}`);
  return invalid;
}

describe('cassette format', () => {
  it('derives step, canonicalArgs and occurrence', () => {
    expect(
      sample().interactions.map((i) => [i.step, i.kind, i.canonicalArgs, i.occurrence]),
    ).toEqual([
      [1, 'tool', '{"text":"a"}', 1],
      [2, 'tool', '{"text":"a"}', 2],
      [3, 'model', '{"prompt":"next?"}', 1],
    ]);
  });

  it('saves pretty, stably ordered JSON that loads back equal', async () => {
    const path = join(tempDir(), 'c.json');

    await saveCassette(path, sample());
    const text = readFileSync(path, 'utf8');

    expect(text.startsWith('{\n  "format": "faultline-cassette",\n  "version": 2,\n')).toBe(true);
    expect(text).toBe(formatCassette(sample()));
    expect(await loadCassette(path)).toEqual(sample());
    expect(readdirSync(join(path, '..'))).toEqual(['c.json']);
  });

  it('refuses a file that is not a faultline cassette', async () => {
    const error = await loadError(JSON.stringify({ ...sample(), format: 'vcr' }));
    expect(error.data.issues).toEqual(['format: must be "faultline-cassette" (got "vcr")']);
  });

  it('refuses a later version rather than guessing', async () => {
    const error = await loadError(JSON.stringify({ ...sample(), version: 3 }));
    expect(error.data.issues).toEqual([
      'version: must be 1 or 2, the cassette versions this faultline reads (got 3)',
    ]);
  });

  it('refuses truncated JSON', async () => {
    const text = JSON.stringify(sample());
    const error = await loadError(text.slice(0, text.length / 2));
    expect(error.data.issues[0]).toMatch(/^\(root\): not valid JSON/);
  });

  it('names the field of a bad interaction', () => {
    const json = JSON.parse(JSON.stringify(sample())) as {
      interactions: Record<string, unknown>[];
    };
    delete json.interactions[0]!.result;

    expect(() => parseCassette(json, 'notes.json')).toThrow(
      'Invalid cassette notes.json: interactions[0].result: needs exactly one of result, error or unanswered',
    );
  });

  it('checks derived fields: a hand-edited occurrence is caught', () => {
    const json = JSON.parse(JSON.stringify(sample())) as { interactions: { occurrence: number }[] };
    json.interactions[1]!.occurrence = 1;

    expect(() => parseCassette(json, 'notes.json')).toThrow(
      'Invalid cassette notes.json: interactions[1].occurrence: must be 2: this is the 2nd such call (got 1)',
    );
  });

  it('writes nothing when the cassette is bad', async () => {
    const dir = tempDir();
    const path = join(dir, 'c.json');
    const bad = { ...sample(), version: 3 } as unknown as Cassette;

    await expect(saveCassette(path, bad)).rejects.toThrow(
      `Invalid cassette ${path}: version: must be 1 or 2`,
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('redaction', () => {
  it('keeps tokens in _meta, arguments and results out of the saved file', async () => {
    const world = notesServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await world.server.connect(serverSide);

    const cassette = await recordMcp(
      { transport: clientSide },
      async (client) => {
        await client.callTool({
          name: 'notes_add',
          arguments: { text: 'pay with Bearer SECRETbearer123', api_key: 'SECRET-arg' },
          _meta: {
            'faultline/credential': 'SECRET-credential',
            'faultline/approval-token': 'SECRET-approval',
            'faultline/run-id': 'run-1',
          },
        });
        await client.callTool({ name: 'notes_get', arguments: { id: 1 } });
      },
      { recordedAt: RECORDED_AT },
    );
    const path = join(tempDir(), 'secret.json');
    await saveCassette(path, cassette);
    const text = readFileSync(path, 'utf8');

    expect(text).not.toContain('SECRET');
    expect(text).toContain('"faultline/run-id": "run-1"');
    expect(text).toContain('"api_key": "[REDACTED]"');
    // The note's text came back in the result; its bearer token is scrubbed there too.
    expect(cassette.interactions[1]).toMatchObject({
      result: { content: [{ type: 'text', text: 'pay with [REDACTED]' }] },
    });
  });

  it('redacts a hand-built cassette on save, canonicalArgs included', async () => {
    const cassette = createCassette({
      recordedAt: RECORDED_AT,
      source: {
        kind: 'mcp-stdio',
        command: 'node',
        args: ['server.js', '--key=sk-SECRETabcdefgh'],
      },
      tools: [],
      interactions: [
        {
          kind: 'tool',
          tool: 'lookup',
          arguments: { password: 'SECRET-pw' },
          result: { content: [], _meta: { token: 'SECRET-t' } },
        },
      ],
    });
    const path = join(tempDir(), 'hand.json');

    await saveCassette(path, cassette);

    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('SECRET');
    expect((await loadCassette(path)).interactions[0]?.canonicalArgs).toBe(
      '{"password":"[REDACTED]"}',
    );
  });

  it('replays a call whose live secret differs from the recorded one', async () => {
    const world = notesServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await world.server.connect(serverSide);
    const cassette = await recordMcp(
      { transport: clientSide },
      async (client) => {
        await client.callTool({ name: 'notes_add', arguments: { text: 'a', api_key: 'old' } });
      },
      { recordedAt: RECORDED_AT },
    );
    const replay = createReplayServer(cassette);
    const client = await connectInMemory(replay.server);

    const result = await client.callTool({
      name: 'notes_add',
      arguments: { text: 'a', api_key: 'new' },
    });
    await client.close();

    expect(result.isError).toBeUndefined();
    expect(replay.divergence).toBeNull();
  });
});
