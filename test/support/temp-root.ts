import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The variable that names the test run's temporary root once one is made: the mark that a second
 * project's setup (each vitest project runs the global setup of its own) finds and reuses.
 */
export const TEST_TEMP_ROOT = 'FAULTLINE_TEST_TEMP_ROOT' as const;

/**
 * Makes one temporary folder for a whole test run and points `TMPDIR` at it, so that every
 * `tmpdir()` of the test files (vitest's fork workers copy `process.env` when they start) and of
 * the commands they spawn lands inside it. Returns what removes it, or nothing when a root is
 * already set: the first caller made it, and only it removes it.
 *
 * Why one root rather than each helper cleaning up: hundreds of tests make folders through a
 * dozen helpers and a test that fails half-way never reaches its own cleanup; the folders had
 * piled up in /tmp by the ten thousand. One root, removed when the run ends, takes them all, and
 * nothing outside it is touched (other runs share /tmp).
 *
 * @example
 * ```ts
 * const remove = makeTestTempRoot(process.env);
 * // … tmpdir() is now inside the root …
 * remove?.();
 * ```
 */
export function makeTestTempRoot(env: NodeJS.ProcessEnv): (() => void) | undefined {
  if (env[TEST_TEMP_ROOT] !== undefined) return undefined;
  const before = env['TMPDIR'];
  const root = mkdtempSync(join(tmpdir(), 'faultline-vitest-'));
  env[TEST_TEMP_ROOT] = root;
  env['TMPDIR'] = root;
  return () => {
    if (before === undefined) delete env['TMPDIR'];
    else env['TMPDIR'] = before;
    delete env['FAULTLINE_TEST_TEMP_ROOT'];
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}

/** Vitest's global setup: the run's temporary root, removed at teardown. */
export function setup(): (() => void) | undefined {
  return makeTestTempRoot(process.env);
}
