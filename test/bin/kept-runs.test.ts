import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readResults, type RunResult } from '../../reports/results.js';
import { keptRunProblem } from '../../bin/kept-runs.js';
import { storeFileProblem } from '../../runtime/store-file-check.js';
import { faultlineInProcess, tempDir } from '../support/cli.js';
import { recordSession, writeRecordingFolder } from '../support/recorded-sessions.js';

/** One scenario under each of its fault plans: ten runs, each with a trajectory and a store. */
const SMALL = ['run', 'refunds/full-refund'];
/** Under load a suite takes longer than the usual minute. */
const SLOW = { timeout: 120_000 };

/** The records minus wall-clock time, the one thing a rerun may change. */
function comparable(dir: string): Omit<RunResult, 'figures'>[] {
  return readResults(dir).results.map((r) => {
    const { wallMs: _wall, ...figures } = r.figures;
    return { ...r, figures };
  });
}

/** A trajectory minus its wall-clock time. */
function trajectoryOf(dir: string, run: RunResult): unknown {
  const t = JSON.parse(readFileSync(join(dir, run.trajectoryFile), 'utf8')) as {
    times: { wallMs?: number };
  };
  delete t.times.wallMs;
  return t;
}

/** The run's store file, named as the engine names it (scenario, plan unless none, seed). */
function storeOf(dir: string, run: RunResult): string {
  const stores = readdirSync(join(dir, 'stores'));
  const planPart = run.faultPlanId === 'none' ? '' : `_${run.faultPlanId}`;
  const name = `${run.scenarioId.replace(/[^a-zA-Z0-9-]+/g, '_')}${planPart}_${String(run.seed)}.db`;
  expect(stores).toContain(name);
  return join(dir, 'stores', name);
}

/** Every file under `dir` with its bytes. */
function snapshot(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (sub: string): void => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const path = join(sub, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(path, readFileSync(join(dir, path)));
    }
  };
  walk('');
  return files;
}

/** The fresh set every damaged one must come back to. */
let fresh: string;
let runs: RunResult[];

beforeAll(async () => {
  fresh = tempDir('kept-fresh');
  const ran = await faultlineInProcess([...SMALL, '--out', fresh], SLOW);
  expect(ran.status, ran.stderr).toBe(0);
  runs = readResults(fresh).results;
  expect(runs).toHaveLength(10);
}, 120_000);

/**
 * What a power loss mid-suite leaves: the unfinished set in `.pending/` (the fresh set's files,
 * as they were before its commit), its newest run lost whole, and files of four finished runs
 * emptied or cut — their records and renames reached the disk, their bytes did not.
 */
function powerLostSet(): { out: string; damaged: RunResult[]; lost: RunResult } {
  const out = tempDir('kept-lost');
  const pending = join(out, '.pending');
  mkdirSync(pending);
  for (const name of ['trajectories', 'stores', 'set.json'])
    cpSync(join(fresh, name), join(pending, name), { recursive: true });
  const lost = runs.at(-1)!;
  writeFileSync(
    join(pending, 'results.jsonl'),
    runs
      .slice(0, -1)
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(''),
  );
  const [emptyTrajectory, cutTrajectory, emptyStore, cutStore] = [
    runs[1]!,
    runs[3]!,
    runs[4]!,
    runs[6]!,
  ];
  truncateSync(join(pending, emptyTrajectory.trajectoryFile), 0);
  const trajectory = readFileSync(join(pending, cutTrajectory.trajectoryFile), 'utf8');
  writeFileSync(
    join(pending, cutTrajectory.trajectoryFile),
    trajectory.slice(0, trajectory.length / 2),
  );
  truncateSync(storeOf(pending, emptyStore), 0);
  const store = storeOf(pending, cutStore);
  truncateSync(store, Math.floor(readFileSync(store).length / 2));
  return { out, damaged: [emptyTrajectory, cutTrajectory, emptyStore, cutStore], lost };
}

describe('keptRunProblem', () => {
  it('passes a whole run, and names a trajectory missing or not a trajectory', () => {
    const out = tempDir('kept-unit');
    cpSync(fresh, out, { recursive: true });
    const [run, other] = [runs[0]!, runs[1]!];
    expect(keptRunProblem(out, run, {})).toBeUndefined();
    writeFileSync(join(out, run.trajectoryFile), 'null');
    expect(keptRunProblem(out, run, {})).toBe('trajectory not a faultline trajectory');
    rmSync(join(out, other.trajectoryFile));
    expect(keptRunProblem(out, other, {})).toBe('trajectory missing');
    // Without a run store (another agent's file is its own), only the trajectory is read.
    truncateSync(storeOf(out, runs[2]!), 0);
    expect(keptRunProblem(out, runs[2]!, undefined)).toBeUndefined();
    expect(keptRunProblem(out, runs[2]!, {})).toBe('store empty');
  });
});

describe('faultline run --resume after a power loss', () => {
  it('makes again exactly the runs whose files were emptied or cut, and keeps the rest as they are', async () => {
    const { out, damaged, lost } = powerLostSet();
    const keptFiles = snapshot(join(out, '.pending'));

    const resumed = await faultlineInProcess([...SMALL, '--resume', '--out', out], SLOW);

    expect(resumed.status, resumed.stderr).toBe(0);
    const named = (r: RunResult, problem: string): string =>
      `${r.scenarioId} / ${r.faultPlanId} (${problem})`;
    expect(resumed.stdout).toContain(
      `resume: 4 finished run(s) had unreadable files (power loss?) and are made again: ${[
        named(damaged[0]!, 'trajectory empty'),
        named(damaged[1]!, 'trajectory cut short'),
        named(damaged[2]!, 'store empty'),
        named(damaged[3]!, 'store cut short'),
      ].join(', ')}`,
    );
    expect(resumed.stdout).toContain('resumed: 5 finished run(s) kept, 5 run now');
    // Exactly the damaged and the lost runs ran.
    const ranNow = resumed.stdout
      .split('\n')
      .filter((line) => /^\[\d+\/5\]/.test(line))
      .map((line) => /(\S+ \/ \S+) →/.exec(line)?.[1]);
    expect(ranNow.sort()).toEqual(
      [...damaged, lost].map((r) => `${r.scenarioId} / ${r.faultPlanId}`).sort(),
    );
    // The set equals a fresh run's, apart from wall times.
    expect(comparable(out)).toEqual(comparable(fresh));
    for (const r of runs) {
      expect(trajectoryOf(out, r)).toEqual(trajectoryOf(fresh, r));
      expect(storeFileProblem(storeOf(out, r))).toBeUndefined();
      expect(readFileSync(storeOf(out, r))).toEqual(readFileSync(storeOf(fresh, r)));
    }
    // The kept runs' files are the very bytes they were: nothing rewrote them.
    for (const r of runs.filter((k) => !damaged.includes(k) && k !== lost)) {
      expect(readFileSync(join(out, r.trajectoryFile))).toEqual(keptFiles.get(r.trajectoryFile));
      const store = storeOf(out, r);
      expect(readFileSync(store)).toEqual(keptFiles.get(store.slice(out.length + 1)));
    }
    expect(existsSync(join(out, '.pending'))).toBe(false);
  });

  it('checks a committed set too: a store emptied, a trajectory of another run', async () => {
    const out = tempDir('kept-committed');
    cpSync(fresh, out, { recursive: true });
    const [emptied, swapped] = [runs[2]!, runs[5]!];
    truncateSync(storeOf(out, emptied), 0);
    writeFileSync(
      join(out, swapped.trajectoryFile),
      readFileSync(join(out, runs[0]!.trajectoryFile)),
    );

    const resumed = await faultlineInProcess([...SMALL, '--resume', '--out', out], SLOW);

    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      `resume: 2 finished run(s) had unreadable files (power loss?) and are made again: refunds/full-refund / ${emptied.faultPlanId} (store empty), refunds/full-refund / ${swapped.faultPlanId} (trajectory of another run: refunds/full-refund / none)`,
    );
    expect(resumed.stdout).toContain('resumed: 8 finished run(s) kept, 2 run now');
    expect(comparable(out)).toEqual(comparable(fresh));
    for (const r of runs) {
      expect(trajectoryOf(out, r)).toEqual(trajectoryOf(fresh, r));
      expect(readFileSync(storeOf(out, r))).toEqual(readFileSync(storeOf(fresh, r)));
    }
  });

  it('says nothing of a set whose files are whole', async () => {
    const out = tempDir('kept-whole');
    cpSync(fresh, out, { recursive: true });
    const resumed = await faultlineInProcess([...SMALL, '--resume', '--out', out], SLOW);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain('unreadable files');
    expect(resumed.stdout).toContain('resumed: 10 finished run(s) kept, 0 run now');
  });
});

describe('faultline run --replay --trials 2 --resume', () => {
  it("finds each trial's own store (trials share a run id) and makes again only the one emptied", async () => {
    const recordings = join(tempDir('kept-replay'), 'recordings');
    await writeRecordingFolder(recordings, [
      await recordSession({ scenarioId: 'refunds/full-refund' }),
    ]);
    const args = ['run', '--replay', recordings, '--trials', '2'];
    const out = tempDir('kept-replay-out');
    const made = await faultlineInProcess([...args, '--out', out], SLOW);
    expect(made.status, made.stderr).toBe(0);
    const stores = readdirSync(join(out, 'stores')).sort();
    expect(stores).toHaveLength(2);
    const whole = await faultlineInProcess([...args, '--resume', '--out', out], SLOW);
    expect(whole.status, whole.stderr).toBe(0);
    expect(whole.stdout).toContain('resumed: 2 finished run(s) kept, 0 run now');

    // The second trial's store is the one named after its own key (`…#1`).
    const second = stores.find((name) => name.endsWith('_1.db'))!;
    truncateSync(join(out, 'stores', second), 0);
    const resumed = await faultlineInProcess([...args, '--resume', '--out', out], SLOW);

    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      'resume: 1 finished run(s) had unreadable files (power loss?) and are made again: refunds/full-refund / recorded-7 #1 (store empty)',
    );
    expect(resumed.stdout).toContain('resumed: 1 finished run(s) kept, 1 run now');
    expect(storeFileProblem(join(out, 'stores', second))).toBeUndefined();
  });
});
