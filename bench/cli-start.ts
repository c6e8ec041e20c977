/**
 * What a start of faultline costs: the built CLI spawned on plain Node, as an installed package
 * runs it, for `list 'refunds/*'`, `run refunds/full-refund` (serial, and with `--workers 2`,
 * whose two threads each load the harness), and a child agent of the crash mode
 * (`scenarios/child/agent-process.js`, started with no parent: it loads and exits). Each spawn's
 * CPU-seconds (user + system of the whole child process, its threads included, read in the
 * child as it exits) and wall seconds; median and interquartile range over rounds.
 *
 * It builds nothing: BENCH_CLI_DIST names one or more built `dist/` folders, comma-separated
 * (`npx tsc -p tsconfig.build.json --noCheck` makes `dist/`, the default). With two, e.g. a
 * clone at the old commit and this one, every round runs each case on both, in alternating order
 * (ABAB), and the ratio B/A of each round is printed beside the figures: what one change did,
 * under the same load.
 *
 * `npx tsx bench/cli-start.ts`; env: BENCH_CLI_DIST (dist), BENCH_ROUNDS (9), BENCH_WARMUP (1),
 * BENCH_CLI_CASES (every case: list,run,workers,child).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadAverage, rounds } from './rounds.js';
import { fmtSpread, spread, type Spread } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const DISTS = (process.env.BENCH_CLI_DIST ?? 'dist')
  .split(',')
  .filter((d) => d !== '')
  .map((d) => resolve(d));

/** One way of starting faultline: the script (relative to a dist) and its arguments. */
interface StartCase {
  name: string;
  script: 'cli' | 'scenarios/child/agent-process.js';
  args(out: string): string[];
}

const CASES: readonly StartCase[] = [
  { name: 'list', script: 'cli', args: () => ['list', 'refunds/*'] },
  { name: 'run', script: 'cli', args: (out) => ['run', 'refunds/full-refund', '--out', out] },
  {
    name: 'workers',
    script: 'cli',
    args: (out) => ['run', 'refunds/full-refund', '--workers', '2', '--out', out],
  },
  { name: 'child', script: 'scenarios/child/agent-process.js', args: () => [] },
];
const CHOSEN = (process.env.BENCH_CLI_CASES ?? CASES.map((c) => c.name).join(','))
  .split(',')
  .filter((c) => c !== '');

const CPU_MARK = 'BENCH_CPU_US ';
/** Loaded first in every spawned process: prints its CPU at exit, on stderr. */
const EXIT_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\n${CPU_MARK}'+(u.user+u.system)+'\\n')})`;

/** A tiny entry that runs the built CLI's `main`, as the package's bin does for dist/. */
function cliShim(folder: string): string {
  const shim = join(folder, 'cli-shim.mjs');
  writeFileSync(
    shim,
    'const { main } = await import(process.env.BENCH_CLI);\nprocess.exitCode = await main(process.argv.slice(2));\n',
  );
  return shim;
}

/** One spawn: its CPU-seconds (read in the child) and wall seconds. */
function spawnOnce(
  dist: string,
  startCase: StartCase,
  shim: string,
  folder: string,
): { cpu: number; wall: number } {
  const out = mkdtempSync(join(folder, 'out-'));
  try {
    const script =
      startCase.script === 'cli' ? shim : join(dist, 'scenarios/child/agent-process.js');
    const started = performance.now();
    const child = spawnSync(
      process.execPath,
      ['--import', EXIT_HOOK, script, ...startCase.args(out)],
      {
        env: { ...process.env, BENCH_CLI: pathToFileURL(join(dist, 'bin/cli.js')).href },
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
      },
    );
    const wall = (performance.now() - started) / 1_000;
    const mark = child.stderr.split('\n').find((l) => l.startsWith(CPU_MARK));
    // `run` exits 1 when a run fails its grades; anything else means the start went wrong.
    if (mark === undefined || (child.status !== 0 && child.status !== 1))
      throw new Error(
        `${startCase.name} on ${dist} exited ${String(child.status)}: ${child.stderr.slice(-500)}`,
      );
    return { cpu: Number(mark.slice(CPU_MARK.length)) / 1e6, wall };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** What {@link benchCliStart} measured per case: CPU and wall per dist, and B/A per round. */
export interface CliStartFigures {
  name: string;
  cpu: Spread[];
  wall: Spread[];
  /** With two dists: the second's CPU over the first's, round by round. */
  cpuRatio?: Spread;
}

/** Prints the CPU and wall time of each start (median and IQR of rounds) and returns them. */
export async function benchCliStart(): Promise<CliStartFigures[]> {
  const folder = mkdtempSync(join(tmpdir(), 'faultline-bench-start-'));
  const shim = cliShim(folder);
  const cases = CASES.filter((c) => CHOSEN.includes(c.name));
  console.log(
    `faultline start: the built CLI and a child agent spawned on plain Node, CPU-seconds of the child process (user + system, threads included); median (IQR) of ${ROUNDS} rounds after ${WARMUP} warm-up round(s)${DISTS.length > 1 ? ', dists interleaved ABAB' : ''}; load ${loadAverage(1)}`,
  );
  DISTS.forEach((d, i) => {
    console.log(`  ${String.fromCharCode(65 + i)} = ${d}`);
  });
  try {
    const got = await rounds({ rounds: ROUNDS, warmup: WARMUP }, (r) => {
      const order = r % 2 === 0 ? DISTS.map((_, i) => i) : DISTS.map((_, i) => i).reverse();
      const round = cases.map(() => DISTS.map(() => ({ cpu: 0, wall: 0 })));
      cases.forEach((c, ci) => {
        for (const di of order) round[ci]![di] = spawnOnce(DISTS[di]!, c, shim, folder);
      });
      return Promise.resolve(round);
    });
    const figures = cases.map((c, ci): CliStartFigures => {
      const per = (di: number) => got.map((round) => round[ci]![di]!);
      const cpu = DISTS.map((_, di) => spread(per(di).map((g) => g.cpu)));
      const wall = DISTS.map((_, di) => spread(per(di).map((g) => g.wall)));
      const ratio =
        DISTS.length > 1
          ? spread(got.map((round) => round[ci]![1]!.cpu / round[ci]![0]!.cpu))
          : undefined;
      return { name: c.name, cpu, wall, ...(ratio ? { cpuRatio: ratio } : {}) };
    });
    for (const f of figures) {
      const each = DISTS.map(
        (_, di) =>
          `${String.fromCharCode(65 + di)} ${fmtSpread(f.cpu[di]!, 2)} CPU-s, wall ${fmtSpread(f.wall[di]!, 2)} s`,
      ).join(' · ');
      console.log(
        `  ${f.name.padEnd(8)} ${each}${f.cpuRatio ? ` · CPU B/A ${fmtSpread(f.cpuRatio, 2, '×')}` : ''}`,
      );
    }
    console.log(`  load after: ${loadAverage(1)}`);
    return figures;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchCliStart();
