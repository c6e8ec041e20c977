import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeFileProblem } from '../../runtime/store-file-check.js';
import { RunStore } from '../../runtime/store.js';
import { newRun } from '../support/store-fixtures.js';
import { tempDir } from '../support/cli.js';

/** A store file as a harness run leaves it: one run, written whole from memory. */
let image: Buffer;
let dir: string;

beforeAll(() => {
  const store = RunStore.openInMemory();
  store.createRun(newRun('run-1'), { type: 'run.created' });
  image = store.serializeAsFile();
  store.close();
  dir = tempDir('store-check');
});

function file(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('storeFileProblem: what a power loss can leave of a store file', () => {
  it('finds nothing wrong with a whole store, and touches nothing beside it', () => {
    const path = file('whole.db', image);
    expect(storeFileProblem(path)).toBeUndefined();
    expect(readFileSync(path)).toEqual(image);
    expect(readdirSync(dir).filter((n) => n.startsWith('whole.db'))).toEqual(['whole.db']);
    // It still opens as a store and holds its run.
    const store = RunStore.open(path);
    expect(store.getRun('run-1')?.id).toBe('run-1');
    store.close();
  });

  it('names a missing, empty, cut or foreign file', () => {
    expect(storeFileProblem(join(dir, 'absent.db'))).toBe('store missing');
    expect(storeFileProblem(file('empty.db', Buffer.alloc(0)))).toBe('store empty');
    expect(storeFileProblem(file('cut.db', image.subarray(0, image.length - 4096)))).toBe(
      'store cut short',
    );
    expect(storeFileProblem(file('header.db', image.subarray(0, 60)))).toBe('store cut short');
    expect(
      storeFileProblem(file('text.db', 'not a database at all, but long enough'.repeat(4))),
    ).toBe('store not a SQLite file');
    expect(existsSync(join(dir, 'absent.db'))).toBe(false);
  });

  it('finds a page a power loss left as zeros, the file its full length', () => {
    expect(image.length).toBeGreaterThanOrEqual(3 * 4096);
    const zeroed = Buffer.from(image);
    zeroed.fill(0, 4096, 8192);
    expect(storeFileProblem(file('zeroed.db', zeroed))).toMatch(/^store unreadable \(.+\)$/);
  });

  it('names a file of zeros as not a SQLite file', () => {
    expect(storeFileProblem(file('zeros.db', Buffer.alloc(image.length)))).toBe(
      'store not a SQLite file',
    );
  });
});
