import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faultlineInProcess, tempDir } from '../support/cli.js';

const dir = tempDir('explore-workers');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * What an exploration prints, minus the wall-clock figures, the progress lines (printed as time
 * passes, so each run shows others) and the folder it saved into.
 */
function timeless(stdout: string, regressions: string): string {
  return stdout
    .split('\n')
    .filter((line) => !/ · [\d.]+ runs\/s$/.test(line))
    .join('\n')
    .replace(/\([\d.]+ s(, [\d.]+ runs\/s)?\)/g, '(… s)')
    .replaceAll(regressions, 'REGRESSIONS');
}

let explored = 0;

/** `faultline explore` with `workers` threads; its output and the regression files it saved. */
async function exploreWith(
  workers: number,
  args: readonly string[],
): Promise<{ status: number | null; stdout: string; saved: Record<string, string> }> {
  const regressions = join(dir, `regressions-${String(++explored)}`);
  const ran = await faultlineInProcess([
    'explore',
    ...args,
    '--workers',
    String(workers),
    '--regressions',
    regressions,
    '--out',
    join(dir, 'out'),
  ]);
  const files = existsSync(regressions) ? readdirSync(regressions) : [];
  const saved = Object.fromEntries(
    files.map((f) => [f, readFileSync(join(regressions, f), 'utf8')]),
  );
  return { status: ran.status, stdout: timeless(ran.stdout, regressions), saved };
}

describe('faultline explore --workers', () => {
  it('finds the same counterexample, path and regression file with one worker or two', async () => {
    // Seed 10 breaks the mutant at the 56th plan of 60: the two workers judge plans past it.
    const args = [
      'refunds/partial-refund',
      '--agent',
      'no-reconcile',
      '--runs',
      '60',
      '--seed',
      '10',
    ];
    const one = await exploreWith(1, args);
    const two = await exploreWith(2, args);

    expect(one.status, one.stdout).toBe(1);
    expect(one.stdout).toMatch(/^counterexample after 56 run\(s\)/m);
    expect(one.stdout).toMatch(/^reproduce: seed 10, path \d+(:\d+)* \(world seed 7\)$/m);
    expect(Object.keys(one.saved)).toHaveLength(1);
    expect(two.status).toBe(1);
    expect(two.stdout).toBe(one.stdout);
    expect(two.saved).toEqual(one.saved);
  }, 60_000);

  it('searches the same plans to the same end when none breaks an invariant', async () => {
    const args = ['crm/update-contact', '--runs', '20', '--seed', '11'];
    const one = await exploreWith(1, args);
    const two = await exploreWith(2, args);

    expect(one.status, one.stdout).toBe(0);
    expect(one.stdout).toMatch(/^no counterexample in 20 run\(s\) \(… s\); seed 11$/m);
    expect(two).toEqual(one);
  }, 60_000);

  it('refuses a worker count that is not a whole number ≥ 1, naming the flag', async () => {
    const ran = await faultlineInProcess(['explore', 'crm/update-contact', '--workers', '0']);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(/--workers must be a whole number ≥ 1 \(got "0"\)/);
  });
});
