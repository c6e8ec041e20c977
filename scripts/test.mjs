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
// as it comes, whole lines only. A summary line per part closes the run, and the exit code is 1
// if any part failed. Arguments (`npm test -- test/runtime`) go to vitest, as they did when
// `npm test` ended in `vitest run`.
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
  { name: 'lint', entry: bin('eslint/bin/eslint.js'), args: ['.'], shown: 'eslint .' },
  {
    name: 'typecheck',
    entry: bin('typescript/bin/tsc'),
    args: ['--noEmit'],
    shown: 'tsc --noEmit',
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

/** Runs one part; resolves with how it ended. Never rejects: a part that cannot start failed. */
function run(part) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [part.entry, ...part.args], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
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
      const result = { part, ok: code === 0, why, seconds };
      if (!part.stream) {
        process.stdout.write(`\n── ${part.name}: ${part.shown} ──\n`);
        for (const chunk of held) process.stdout.write(chunk);
        process.stdout.write(`── ${part.name}: ${describe(result)} ──\n\n`);
      }
      resolve(result);
    };
    child.on('error', (error) => finish(1, `could not start: ${error.message}`));
    child.on('close', (code, signal) =>
      finish(code ?? 1, signal === null ? `exit ${String(code)}` : `killed by ${signal}`),
    );
  });
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

const results = await Promise.all(parts.map(run));
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
