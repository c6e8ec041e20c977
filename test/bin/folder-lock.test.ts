import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults } from '../../reports/results.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import {
  FAULTLINE_BIN,
  expectInputError,
  faultlineInProcess,
  ROOT,
  tempDir,
  type Ran,
} from '../support/cli.js';

/** A small suite with faults: long enough (tens of runs) for a second writer to meet it. */
const SUITE = ['run', 'refunds/*', '--trials', '2'];
const SLOW = { timeout: 120_000 };

/** The pid of a process that has ended: what a lock left by a killed run holds. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(child.status).toBe(0);
  return child.pid;
}

/** The real command, run without blocking this process (so the first writer's output flows). */
function started(args: readonly string[]): Promise<Ran & { pid: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FAULTLINE_BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => {
      resolve({ status, stdout, stderr, pid: child.pid ?? 0 });
    });
  });
}

describe('the lock on a result set folder', () => {
  it('lets one of three writers started at once run, refusing the others, and its set stays whole', async () => {
    const out = tempDir('lock');

    // Two runs and a resume into one folder at the same moment: one takes the lock.
    const ran = await Promise.all([
      started([...SUITE, '--out', out]),
      started([...SUITE, '--out', out]),
      started([...SUITE, '--resume', '--out', out]),
    ]);

    const winners = ran.filter((r) => r.status === 0);
    expect(winners).toHaveLength(1);
    for (const refused of ran.filter((r) => r !== winners[0])) {
      expectInputError(
        refused,
        new RegExp(
          `^faultline run: ${out} is in use by another faultline run \\(pid ${winners[0]!.pid}\\); wait for it to end or choose another --out$`,
        ),
      );
    }
    const results = readResults(out).results;
    const refunds = BUILT_IN_SCENARIOS.filter((sc) => sc.id.startsWith('refunds/'));
    expect(results).toHaveLength(2 * refunds.reduce((n, sc) => n + 1 + sc.faultPlans.length, 0));
    expect(results.map((r) => r.index)).toEqual(results.map((_, i) => i));
    expect(new Set(results.map((r) => r.id)).size).toBe(results.length);
    expect(existsSync(join(out, '.lock'))).toBe(false);
  }, 240_000);

  it('refuses a writer while a live process holds the lock, writing nothing', async () => {
    const out = tempDir('lock');
    // A live process other than this one (the command runs in this process) stands for a run in
    // progress: the one that started this test worker.
    writeFileSync(join(out, '.lock'), JSON.stringify({ pid: process.ppid, command: 'merge' }));

    const ran = await faultlineInProcess(['run', 'refunds/full-refund', '--out', out], SLOW);

    expectInputError(ran, /is in use by another faultline merge \(pid \d+\)/, 'run');
    expect(readdirSync(out)).toEqual(['.lock']);
  }, 120_000);

  it('takes over a stale lock, left by a process that is gone', async () => {
    const out = tempDir('lock');
    writeFileSync(join(out, '.lock'), JSON.stringify({ pid: deadPid(), command: 'run' }));

    const ran = await faultlineInProcess(
      ['run', 'refunds/full-refund', '--plan', 'none', '--out', out],
      SLOW,
    );

    expect(ran.status, ran.stderr).toBe(0);
    expect(readResults(out).results).toHaveLength(1);
    expect(existsSync(join(out, '.lock'))).toBe(false);
  }, 120_000);

  it('is taken by merge too', async () => {
    const shard = tempDir('lock');
    expect(
      (await faultlineInProcess(['run', 'refunds/full-refund', '--out', shard], SLOW)).status,
    ).toBe(0);
    const out = tempDir('lock');
    // A live process other than this one, as above.
    writeFileSync(join(out, '.lock'), JSON.stringify({ pid: process.ppid, command: 'run' }));

    const ran = await faultlineInProcess(['merge', shard, '--out', out], SLOW);

    expectInputError(ran, /is in use by another faultline run/, 'merge');
  }, 120_000);
});
