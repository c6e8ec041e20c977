#!/usr/bin/env node
// `npm test`: the type check, the linter, the format check and the test suite, all at once.
//
// Run one after another, the three static checks keep one core of two busy for a minute and a
// half before the first test starts (each is a single thread), and the test files leave the CPU
// idle whenever they wait on SQLite, child processes and sockets. Started together, each part
// fills the others' gaps; the checks run at a lower priority so the test files, which have
// timeouts, keep the CPU they need and the checks take what is left.
//
// Each check's output is printed in one piece when it finishes; the test suite's output streams
// as it comes, whole lines only. A summary line per check closes the run, and the exit code is 1
// if any check failed. Arguments (`npm test -- test/runtime`) go to vitest, as they did when
// `npm test` ended in `vitest run`.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (path) => join(root, 'node_modules', path);

/** Lower than the test suite's priority: the checks use the CPU the tests leave idle. */
const CHECK_NICENESS = 10;

const parts = [
  {
    // `eslint .` and `tsc --noEmit` over one TypeScript program (the script says why); it sends
    // each check's result and output back, and each is printed and summarised on its own.
    name: 'lint+typecheck',
    entry: join(root, 'scripts', 'typecheck-and-lint.mjs'),
    args: [],
    shown: 'node scripts/typecheck-and-lint.mjs',
    checks: ['lint', 'typecheck'],
  },
  {
    name: 'format',
    entry: bin('prettier/bin/prettier.cjs'),
    args: ['--check', '.'],
    shown: 'prettier --check .',
  },
  {
    name: 'vitest',
    entry: bin('vitest/vitest.mjs'),
    args: ['run', ...process.argv.slice(2)],
    shown: ['vitest run', ...process.argv.slice(2)].join(' '),
    stream: true,
  },
];

const color = process.stdout.isTTY === true;
const env = color ? { ...process.env, FORCE_COLOR: '1' } : process.env;
const children = new Set();

/**
 * Runs one part; resolves with how each of its checks ended (one, unless the part sends several).
 * Never rejects: a part that cannot start failed.
 */
function run(part) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [part.entry, ...part.args], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe', ...(part.checks === undefined ? [] : ['ipc'])],
    });
    let sent;
    child.on('message', (message) => {
      sent = message;
    });
    children.add(child);
    if (!part.stream && child.pid !== undefined) {
      try {
        setPriority(child.pid, CHECK_NICENESS);
      } catch {
        // Not permitted here (some containers): the check runs at the suite's priority.
      }
    }
    const held = [];
    let partial = '';
    const take = (chunk) => {
      if (!part.stream) {
        held.push(chunk);
        return;
      }
      // Whole lines only, so a check's block never lands inside a line of the suite's output.
      const text = partial + chunk.toString('utf8');
      const end = text.lastIndexOf('\n') + 1;
      process.stdout.write(text.slice(0, end));
      partial = text.slice(end);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const finish = (code, why) => {
      children.delete(child);
      if (partial !== '') process.stdout.write(`${partial}\n`);
      const seconds = (performance.now() - started) / 1000;
      if (part.checks !== undefined) {
        resolve(checksOf(part, sent, held, { code, why, seconds }));
        return;
      }
      const result = { part, ok: code === 0, why, seconds };
      if (!part.stream) print(result, held);
      resolve([result]);
    };
    child.on('error', (error) => finish(1, `could not start: ${error.message}`));
    child.on('close', (code, signal) =>
      finish(code ?? 1, signal === null ? `exit ${String(code)}` : `killed by ${signal}`),
    );
  });
}

/**
 * The results of a part that runs several checks, from what it sent: each check as if it had
 * been a part of its own. A part that ended without sending them (it crashed) failed every check,
 * and what it printed is shown under each.
 */
function checksOf(part, sent, held, ended) {
  const results = part.checks.map((name) => {
    const check = sent?.checks.find((candidate) => candidate.name === name);
    if (check === undefined) {
      return {
        part: { name, shown: part.shown },
        ok: false,
        why: `${part.shown}: ${ended.why}, no result`,
        seconds: ended.seconds,
        held,
      };
    }
    // A part that failed after sending passing checks (it crashed on its way out) failed them.
    const crashed = ended.code !== 0 && sent.checks.every((each) => each.ok);
    return {
      part: { name, shown: check.shown },
      ok: check.ok && !crashed,
      why: crashed ? ended.why : 'errors',
      seconds: check.seconds,
      held: [Buffer.from(check.output)],
    };
  });
  // Anything else the part printed (a warning from a dependency) stays visible, once.
  if (sent !== undefined && held.length > 0) results[0].held = [...held, ...results[0].held];
  for (const result of results) print(result, result.held);
  return results;
}

function print(result, held) {
  process.stdout.write(`\n── ${result.part.name}: ${result.part.shown} ──\n`);
  for (const chunk of held) process.stdout.write(chunk);
  process.stdout.write(`── ${result.part.name}: ${describe(result)} ──\n\n`);
}

function describe({ ok, why, seconds }) {
  return `${ok ? 'ok' : `FAILED (${why})`} in ${seconds.toFixed(1)} s`;
}

// A cancelled run (CI stopping a job, a terminal closing) stops every part, not just this one.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    process.exitCode = 1;
  });
}

const results = (await Promise.all(parts.map(run))).flat();
process.stdout.write('\nnpm test:\n');
for (const result of results) {
  process.stdout.write(
    `  ${result.part.name.padEnd(10)} ${describe(result)}  (${result.part.shown})\n`,
  );
}
const failed = results.filter((result) => !result.ok).map((result) => result.part.name);
process.stdout.write(
  failed.length === 0 ? 'npm test: all parts passed\n' : `npm test: FAILED: ${failed.join(', ')}\n`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
