import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../runtime/store.js';
import { SCHEMA_VERSION } from '../../runtime/store-schema.js';
import { newRun } from '../support/store-fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faultline-store-open-'));
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('RunStore.open of a new file (written from the process image of a new store)', () => {
  it('gives each new file the current schema in WAL mode, and stores of their own', () => {
    const a = RunStore.open(path.join(dir, 'a.db'));
    const b = RunStore.open(path.join(dir, 'b.db'));
    a.createRun(newRun('run-a'), { type: 'run.created' });
    a.close();
    b.close();

    const raw = new Database(path.join(dir, 'a.db'), { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
    const again = RunStore.open(path.join(dir, 'b.db'));
    expect(again.getRun('run-a')).toBeUndefined();
    again.close();
  });

  it('opens a store that is already there, never replacing what it holds', () => {
    const file = path.join(dir, 'kept.db');
    const first = RunStore.open(file);
    first.createRun(newRun('run-1'), { type: 'run.created' });
    first.close();

    const reopened = RunStore.open(file);
    expect(reopened.getRun('run-1')?.id).toBe('run-1');
    reopened.close();
  });

  it('still refuses a file that is not a store, and a folder that does not exist', () => {
    const junk = path.join(dir, 'junk.db');
    fs.writeFileSync(junk, 'not a database at all, but long enough to have a header of sorts');
    expect(() => RunStore.open(junk)).toThrow(/not a database/);
    expect(fs.readFileSync(junk, 'utf8')).toMatch(/^not a database at all/);
    expect(() => RunStore.open(path.join(dir, 'missing', 'x.db'))).toThrow(
      /directory does not exist/,
    );
  });
});

describe('RunStore.open with the harness options (unsynced, exclusive)', () => {
  it('holds the file alone while open, with the WAL index in memory (no -shm file)', () => {
    const file = path.join(dir, 'exclusive.db');
    const store = RunStore.open(file, { sync: 'off', exclusive: true });
    store.createRun(newRun('run-x'), { type: 'run.created' });
    expect(fs.existsSync(`${file}-shm`)).toBe(false);
    const other = new Database(file, { timeout: 0 });
    expect(() => other.pragma('user_version', { simple: true })).toThrow(/locked/);
    other.close();
    store.close();

    const shared = RunStore.open(file);
    expect(shared.getRun('run-x')?.id).toBe('run-x');
    shared.close();
  });

  it('keeps every commit through a killed process, unsynced', () => {
    const file = path.join(dir, 'killed.db');
    const script = [
      `import { RunStore } from ${JSON.stringify(path.resolve('runtime/store.ts'))};`,
      `import { newRun } from ${JSON.stringify(path.resolve('test/support/store-fixtures.ts'))};`,
      `const store = RunStore.open(${JSON.stringify(file)}, { sync: 'off', exclusive: true });`,
      `store.createRun(newRun('run-k'), { type: 'run.created' });`,
      `store.commit('run-k', { at: 5, event: { type: 'note' } });`,
      `process.kill(process.pid, 'SIGKILL');`,
    ].join('\n');
    const child = spawnSync(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ]);
    expect(child.signal, child.stderr.toString()).toBe('SIGKILL');
    // Killed with the store open: the commits are in the WAL, which the next open recovers.
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    const store = RunStore.open(file, { sync: 'off', exclusive: true });
    expect(store.events('run-k').map((e) => e.type)).toEqual(['run.created', 'note']);
    store.close();
  });
});
