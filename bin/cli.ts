import { printable } from '../reports/printable.js';
import { UnknownReporterError } from '../reports/reporters.js';
import { ResultsError } from '../reports/results.js';
import { FaultlineError } from '../runtime/errors.js';
import { processIo, type Io } from './io.js';
import { UsageError } from './usage-error.js';

const HELP = `faultline — fault-injection and evaluation harness for tool-using agents

Usage: faultline <command> [options]

Commands:
  run [globs…]      run scenarios through an agent, grade every run, store and report results
  list              list the scenarios by world, the fault kinds and the agents
  show RUN          print one run of a result set as a timeline, with its findings
  compare A B       compare result set B against baseline A, pair by pair
  promote RESULTS   judge a result set against the promotion gate of an autonomy level
  merge DIR…        combine the result sets of sharded runs into one
  matrix [globs…]   run the agent zoo, grade every run, and check each mutant is caught
  explore SCENARIO  search fault plans for the smallest one that breaks an agent
  serve SCENARIO    serve a scenario's world and fault plan to any MCP client, grade the session
  record SCENARIO   record an agent's session with a live MCP server as a replayable cassette
  passk [RESULTS…]  pass^1 and pass^k per agent and fault kind: how success holds up under faults

Run 'faultline <command> --help' for a command's options.`;

type Command = (argv: string[], io: Io) => Promise<number>;

// Each command's module is imported when that command runs: a start pays for what its command
// uses, so `faultline list` loads neither the model stack, fast-check nor an HTTP server.
// test/support/load-probe.ts holds this for the built CLI (in the list and run tests' spawns).
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./commands/run.js')).runCommand,
  list: async () => (await import('./commands/list.js')).listCommand,
  show: async () => (await import('./commands/show.js')).showCommand,
  compare: async () => (await import('./commands/compare.js')).compareCommand,
  promote: async () => (await import('./commands/promote.js')).promoteCommand,
  merge: async () => (await import('./commands/merge.js')).mergeCommand,
  matrix: async () => (await import('./commands/matrix.js')).matrixCommand,
  explore: async () => (await import('./commands/explore.js')).exploreCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  record: async () => (await import('./commands/record.js')).recordCommand,
  passk: async () => (await import('./commands/passk.js')).passkCommand,
};

/** Runs the command line; returns the exit code (0 ok, 1 failures found, 2 bad usage). */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    io.err(`faultline: unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return 2;
  }
  // Messages quote files and arguments: escape what a terminal would act on, keep one line.
  const fail = (message: string): number => {
    io.err(`faultline ${name}: ${printable(message)}`);
    return 2;
  };
  try {
    const command = await load();
    return await command(negativesAsValues(rest), io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      // One line: Node's parseArgs messages can run to several.
      return fail((error as Error).message.split('\n')[0] ?? '');
    }
    if (error instanceof ResultsError || error instanceof UnknownReporterError)
      return fail(error.message);
    if (
      error instanceof FaultlineError &&
      (error.code === 'invalid-input' || error.code === 'live-unreachable')
    )
      return fail(error.message);
    if (error instanceof FaultlineError && error.code === 'model-replay-miss') {
      // A divergence, not bad usage: the suite stopped at it and committed nothing.
      const [first = '', ...rest] = error.message.split('\n');
      io.err(`faultline ${name}: ${printable(first)}`);
      for (const line of rest) io.err(printable(line));
      io.err(
        'the suite stopped at the first miss and committed no results (record again with --record-model DIR if the change is intended)',
      );
      return 1;
    }
    // A file or folder the command cannot use (a folder where a file must be, no permission):
    // the path and the reason, never a stack trace.
    if (isSystemError(error)) return fail(systemErrorLine(error));
    const binding = sqliteBindingProblem(error);
    if (binding !== undefined) return fail(binding);
    throw error;
  }
}

/**
 * `--seed -1` as `--seed=-1`: parseArgs reads a value that starts with a dash as an option
 * ("argument is ambiguous"), so a negative number never reached the check that says what is
 * wrong with it. Every command's numeric options then refuse it by name.
 */
export function negativesAsValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const next = argv[i + 1];
    if (/^--[^=]+$/.test(arg) && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

interface SystemError extends Error {
  code: string;
  path?: string;
  syscall?: string;
}

function isSystemError(error: unknown): error is SystemError {
  return (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    /^E[A-Z]+$/.test(error.code) &&
    'syscall' in error
  );
}

const SYSTEM_REASONS: Readonly<Record<string, string>> = {
  EISDIR: 'is a folder, where a file was expected',
  ENOTDIR: 'a part of this path is a file, where a folder was expected',
  EEXIST: 'already exists',
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
};

function systemErrorLine(error: SystemError): string {
  const reason = SYSTEM_REASONS[error.code] ?? error.message.split('\n')[0] ?? error.code;
  return `${error.path ?? error.syscall ?? ''}: ${reason} (${error.code})`;
}

/**
 * What to do when better-sqlite3 cannot load its native binding, or `undefined` when `error` is
 * something else. Its install script builds the binding; an install that skipped scripts
 * (`--ignore-scripts`, a policy) leaves none, and the `bindings` package then throws "Could not
 * locate the bindings file" at the first store opened. A binding built for another Node.js
 * fails to load (`ERR_DLOPEN_FAILED`). Either way `npm rebuild better-sqlite3` builds one. A
 * run in a worker thread fails with the thread's message quoted, which is read the same way.
 *
 * @example
 * ```ts
 * sqliteBindingProblem(new Error('Could not locate the bindings file. … better_sqlite3.node'));
 * // "better-sqlite3, faultline's store, has no native binding (…): run `npm rebuild …` …"
 * ```
 */
export function sqliteBindingProblem(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  // Read from the message: a worker thread's failure reaches here as a new error quoting it.
  const { message } = error;
  if (!message.includes('better_sqlite3.node')) return undefined;
  const first = message.split('\n')[0] ?? '';
  const missing = message.includes('Could not locate the bindings file');
  const foreign =
    (error as { code?: unknown }).code === 'ERR_DLOPEN_FAILED' ||
    /NODE_MODULE_VERSION|compiled against a different Node\.js version/.test(message);
  if (!missing && !foreign) return undefined;
  const what = missing
    ? 'has no native binding (its install script did not run)'
    : `cannot load its native binding (${first})`;
  return `better-sqlite3, faultline's store, ${what}: run \`npm rebuild better-sqlite3\` in your project (with npm 11, \`npm install-scripts approve better-sqlite3\` allows its install script for later installs)`;
}

function isParseArgsError(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')
  );
}
