import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { main } from '../../bin/cli.js';
import type { Io } from '../../bin/io.js';
import { builtPackage } from './built-package.js';

/** The repository root: where the real command runs from, so relative paths in tests resolve. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The command a test spawns: the test run's built package's `bin/faultline.js` (see
 * built-package.ts), which runs the sources as built at the start of the run on plain Node, as
 * an installed package does, rather than through tsx (about five times the CPU per start). A
 * test whose point is the checkout's own entry spawns `join(ROOT, 'bin/faultline.js')` instead.
 */
export const FAULTLINE_BIN = join(builtPackage(), 'bin', 'faultline.js');

/** What a run of the command left: its exit status and everything it printed. */
export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface FaultlineOptions {
  /** Added to the test's environment (which always has `NO_COLOR=1`). */
  env?: NodeJS.ProcessEnv;
  /** Milliseconds before the command is killed; 60 s unless told. */
  timeout?: number;
  /** Where the command runs; the repository root unless told. */
  cwd?: string;
  /** Node's own arguments, before the script (a module hook the test reads: load-probe.ts). */
  nodeArgs?: readonly string[];
}

/**
 * Runs the real command (`node bin/faultline.js …` of the built package, {@link FAULTLINE_BIN})
 * and waits for it, colourless, from the repository root.
 *
 * @example
 * const ran = faultline(['list', '--json']);
 * expect(ran.status, ran.stderr).toBe(0);
 */
export function faultline(args: readonly string[], options: FaultlineOptions = {}): Ran {
  const child = spawnSync(process.execPath, [...(options.nodeArgs ?? []), FAULTLINE_BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    encoding: 'utf8',
    timeout: options.timeout ?? 60_000,
  });
  if (child.error) throw child.error;
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** A fresh directory under the system's temporary folder, named `faultline-<name>-…`. */
export function tempDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `faultline-${name}-`));
}

/**
 * A refused invocation: one line on stderr (naming `command` when given), nothing on stdout,
 * exit 2.
 */
export function expectInputError(ran: Ran, pattern: RegExp, command?: string): void {
  expect(ran.stdout).toBe('');
  const lines = ran.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  if (command !== undefined) expect(lines[0]).toMatch(new RegExp(`^faultline ${command}: `));
  expect(lines[0]).toMatch(pattern);
  expect(ran.status).toBe(2);
}

/** What {@link faultline} takes (but Node's arguments); the timeout is the test's own in process. */
export type InProcessOptions = Omit<FaultlineOptions, 'nodeArgs'>;

/**
 * Runs the command in this process (`main` with a capturing Io): what it printed and its exit
 * status. What `faultline` checks by spawning, at a fraction of the cost (no new Node, no tsx
 * compile): for every test where a separate process proves nothing. It is also how a test lets
 * msw see the command's HTTP calls, which a spawned process would make out of its reach.
 * `env` is set for the call and restored after it (an `undefined` value unsets the variable);
 * `cwd` is entered for the call and left after it (a forks-pool worker may change directory).
 *
 * @example
 * const ran = await faultlineInProcess(['run', 'refunds/full-refund', '--out', dir]);
 */
export async function faultlineInProcess(
  args: readonly string[],
  options: InProcessOptions = {},
): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    out: (t) => (stdout += `${t}\n`),
    err: (t) => (stderr += `${t}\n`),
    // As the command prints progress to a stdout that is not a terminal: one line each.
    progress: (t) => (stdout += `${t}\n`),
    progressDone: () => undefined,
    color: false,
    tty: false,
  };
  const saved = Object.entries(options.env ?? {}).map(([key]) => [key, process.env[key]] as const);
  const dir = process.cwd();
  try {
    for (const [key, value] of Object.entries(options.env ?? {})) setEnv(key, value);
    if (options.cwd !== undefined) process.chdir(options.cwd);
    const status = await main([...args], io);
    return { status, stdout, stderr };
  } finally {
    process.chdir(dir);
    for (const [key, value] of saved) setEnv(key, value);
  }
}

function setEnv(key: string, value: string | undefined): void {
  // process.env is a map of variables: an unset one is removed, as the shell's `unset` would.
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}
