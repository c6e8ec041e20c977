import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkRecordedSession,
  createCassette,
  loadCassette,
  readRecordingIndex,
  recordingFile,
  RECORDING_INDEX_FILE,
  writeRecordedSession,
  type Cassette,
  type CassetteSession,
  type RecordingIndex,
} from '../../recordings/index.js';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'faultline-recordings-'));

function session(runId: string, overrides: Partial<CassetteSession> = {}): CassetteSession {
  return {
    runId,
    scenario: { id: runId.split('#')[0], title: 'a refund' },
    faultPlanId: 'lost-ack',
    mode: 'autonomous',
    agent: { name: 'reference', version: '0.1.0' },
    outcome: { state: 'completed', stopReason: null, detail: null },
    verdict: 'pass',
    verdictSource: '--verdict',
    modelCassette: null,
    wallMs: 812,
    ...overrides,
  };
}

function cassette(runId: string, overrides: Partial<CassetteSession> = {}): Cassette {
  return createCassette({
    recordedAt: '2026-12-01T22:00:00.000Z',
    source: { kind: 'mcp-stdio', command: 'faultline', args: ['serve', 'refunds/partial-refund'] },
    tools: [{ name: 'refund', inputSchema: { type: 'object' } }],
    interactions: [
      {
        kind: 'tool',
        tool: 'refund',
        arguments: { order: 'A-1' },
        meta: { 'faultline/credential': 'cred-live-123' },
        unanswered: { waitedMs: 30_000 },
      },
      {
        kind: 'tool',
        tool: 'refund',
        arguments: { order: 'A-1' },
        result: { content: [{ type: 'text', text: 'already refunded' }] },
      },
      { kind: 'model', request: { prompt: 'next?' }, reply: { text: 'done' } },
    ],
    session: session(runId, overrides),
  });
}

const index = (dir: string): RecordingIndex =>
  JSON.parse(readFileSync(join(dir, RECORDING_INDEX_FILE), 'utf8')) as RecordingIndex;

describe('recordingFile', () => {
  it('names a session file from its run id as model cassettes are named', () => {
    expect(recordingFile('refunds/partial-refund#none#0')).toBe(
      'refunds__partial-refund.none.0.json',
    );
  });
});

describe('writeRecordedSession', () => {
  it('writes the cassette under its run id and lists it in a new index', async () => {
    const dir = join(fresh(), 'recordings');
    const written = await writeRecordedSession(dir, cassette('refunds/partial-refund#lost-ack#0'));

    expect(written.file).toBe('refunds__partial-refund.lost-ack.0.json');
    const loaded = await loadCassette(join(dir, written.file));
    expect(loaded.session?.runId).toBe('refunds/partial-refund#lost-ack#0');
    expect(readFileSync(join(dir, written.file), 'utf8')).not.toContain('cred-live-123');
    expect(index(dir)).toEqual({
      format: 'faultline-recordings',
      version: 1,
      sessions: [
        {
          file: 'refunds__partial-refund.lost-ack.0.json',
          runId: 'refunds/partial-refund#lost-ack#0',
          scenarioId: 'refunds/partial-refund',
          faultPlanId: 'lost-ack',
          agent: 'reference',
          mode: 'autonomous',
          recordedAt: '2026-12-01T22:00:00.000Z',
          toolCalls: 2,
          unanswered: 1,
          verdict: 'pass',
        },
      ],
    });
    expect(readdirSync(dir).sort()).toEqual([RECORDING_INDEX_FILE, written.file].sort());
  });

  it('adds later sessions to the index and keeps the earlier ones whole', async () => {
    const dir = fresh();
    await writeRecordedSession(dir, cassette('refunds/a#none#0'));
    const before = readFileSync(join(dir, 'refunds__a.none.0.json'), 'utf8');
    await writeRecordedSession(dir, cassette('refunds/b#none#0', { verdict: null }));

    expect(index(dir).sessions.map((s) => [s.runId, s.verdict])).toEqual([
      ['refunds/a#none#0', 'pass'],
      ['refunds/b#none#0', null],
    ]);
    expect(readFileSync(join(dir, 'refunds__a.none.0.json'), 'utf8')).toBe(before);
  });

  it('refuses a second session with the same run id, and writes nothing', async () => {
    const dir = fresh();
    await writeRecordedSession(dir, cassette('refunds/a#none#0'));
    const cassetteBefore = readFileSync(join(dir, 'refunds__a.none.0.json'), 'utf8');
    const indexBefore = readFileSync(join(dir, RECORDING_INDEX_FILE), 'utf8');

    await expect(
      writeRecordedSession(dir, cassette('refunds/a#none#0', { verdict: 'fail' })),
    ).rejects.toThrow(
      /refunds\/a#none#0 is already recorded in .*refunds__a\.none\.0\.json.*--force/,
    );
    expect(readFileSync(join(dir, 'refunds__a.none.0.json'), 'utf8')).toBe(cassetteBefore);
    expect(readFileSync(join(dir, RECORDING_INDEX_FILE), 'utf8')).toBe(indexBefore);
  });

  it('replaces a session with the same run id when forced, in its place in the index', async () => {
    const dir = fresh();
    await writeRecordedSession(dir, cassette('refunds/a#none#0'));
    await writeRecordedSession(dir, cassette('refunds/b#none#0'));
    await writeRecordedSession(dir, cassette('refunds/a#none#0', { verdict: 'fail' }), {
      force: true,
    });

    expect(index(dir).sessions.map((s) => [s.runId, s.verdict])).toEqual([
      ['refunds/a#none#0', 'fail'],
      ['refunds/b#none#0', 'pass'],
    ]);
    expect((await loadCassette(join(dir, 'refunds__a.none.0.json'))).session?.verdict).toBe('fail');
  });

  it('refuses a folder whose index is malformed in one line, and writes nothing', async () => {
    for (const bad of [
      '{"format":"faultline-recordings","version":1,"sessions":[{"file":"x.json"}]}',
      '{"format":"something-else","version":1,"sessions":[]}',
      '{"format":"faultline-recordings","vers',
    ]) {
      const dir = fresh();
      writeFileSync(join(dir, RECORDING_INDEX_FILE), bad);
      const attempt = writeRecordedSession(dir, cassette('refunds/a#none#0'));
      await expect(attempt).rejects.toThrow(/index\.json/);
      const message = await attempt.catch((e: unknown) => (e as Error).message);
      expect(message).not.toContain('\n');
      expect(readdirSync(dir)).toEqual([RECORDING_INDEX_FILE]);
      expect(readFileSync(join(dir, RECORDING_INDEX_FILE), 'utf8')).toBe(bad);
    }
  });

  it('refuses a cassette without a session: a folder of recordings is a suite of sessions', async () => {
    const dir = fresh();
    const bare = { ...cassette('refunds/a#none#0') };
    delete bare.session;
    await expect(writeRecordedSession(dir, bare)).rejects.toThrow(/session/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves no temporary file behind', async () => {
    const dir = fresh();
    await writeRecordedSession(dir, cassette('refunds/a#none#0'));
    await writeRecordedSession(dir, cassette('refunds/a#none#0'), { force: true });
    expect(readdirSync(dir).filter((f) => f.includes('tmp'))).toEqual([]);
  });
});

describe('checkRecordedSession (before a session runs)', () => {
  it('accepts an absent folder and a folder with a good index', async () => {
    const dir = fresh();
    await expect(checkRecordedSession(join(dir, 'new'), 'refunds/a#none#0')).resolves.toBeNull();
    await writeRecordedSession(dir, cassette('refunds/a#none#0'));
    await expect(checkRecordedSession(dir, 'refunds/b#none#0')).resolves.toMatchObject({
      sessions: [{ runId: 'refunds/a#none#0' }],
    });
    expect(existsSync(join(dir, 'new'))).toBe(false);
  });

  it('refuses a run id already recorded unless forced, and a malformed index always', async () => {
    const dir = fresh();
    await writeRecordedSession(dir, cassette('refunds/a#none#0'));
    await expect(checkRecordedSession(dir, 'refunds/a#none#0')).rejects.toThrow(/--force/);
    await expect(
      checkRecordedSession(dir, 'refunds/a#none#0', { force: true }),
    ).resolves.not.toBeNull();
    const broken = fresh();
    mkdirSync(join(broken, RECORDING_INDEX_FILE));
    await expect(checkRecordedSession(broken, 'refunds/a#none#0')).rejects.toThrow(/index\.json/);
  });

  it('reads an index back as written', async () => {
    const dir = fresh();
    expect(await readRecordingIndex(dir)).toBeNull();
    await writeRecordedSession(dir, cassette('refunds/a#none#0'));
    expect((await readRecordingIndex(dir))?.sessions).toHaveLength(1);
  });
});
