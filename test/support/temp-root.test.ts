import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTestTempRoot, TEST_TEMP_ROOT } from './temp-root.js';

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..');
}

describe('the test run keeps its temporary files in one root it removes', () => {
  it('points the worker at the run root', () => {
    const root = process.env[TEST_TEMP_ROOT];
    expect(root, 'the global setup made no root').toBeDefined();
    expect(tmpdir()).toBe(root);
    expect(inside(join(tmpdir(), 'faultline-x'), root ?? '')).toBe(true);
  });

  it('points a command the test spawns at the same root', () => {
    const seen = execFileSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], {
      encoding: 'utf8',
    }).trim();
    expect(seen).toBe(process.env[TEST_TEMP_ROOT]);
  });

  it('removes the root and all in it, restores TMPDIR, and leaves a root it did not make', () => {
    const env: NodeJS.ProcessEnv = { TMPDIR: '/somewhere' };
    const remove = makeTestTempRoot(env);
    const root = env[TEST_TEMP_ROOT] ?? '';
    expect(env['TMPDIR']).toBe(root);
    mkdirSync(join(root, 'faultline-trial-1', 'stores'), { recursive: true });
    writeFileSync(join(root, 'faultline-trial-1', 'stores', 'a.db'), 'x');

    expect(makeTestTempRoot(env), 'a second project reuses the root').toBeUndefined();
    expect(remove).toBeDefined();
    remove?.();

    expect(existsSync(root)).toBe(false);
    expect(env).toEqual({ TMPDIR: '/somewhere' });
  });
});
