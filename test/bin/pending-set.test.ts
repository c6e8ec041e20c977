import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FolderLock } from '../../bin/folder-lock.js';
import { commitPendingSet, openPendingSet } from '../../bin/pending-set.js';
import {
  readResults,
  ResultsWriter,
  trajectoryFileFor,
  type RunResult,
} from '../../reports/results.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { expectInputError, faultlineInProcess, tempDir } from '../support/cli.js';
import { runRecord } from '../support/result-sets.js';

/** A small suite: one scenario, without faults and under each of its fault plans. */
const SMALL = ['run', 'refunds/full-refund'];
/** Under load a suite takes longer than the usual minute. */
const SLOW = { timeout: 120_000 };

/** Every file under `dir` with its bytes: what a refused command must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (sub: string): void => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const path = join(sub, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path), 'base64');
    }
  };
  walk('');
  return files;
}

/** A folder holding a finished result set of the small suite. */
async function previousSet(): Promise<string> {
  const out = tempDir('prev');
  const ran = await faultlineInProcess([...SMALL, '--out', out], SLOW);
  expect(ran.status, ran.stderr).toBe(0);
  return out;
}

function scenarioFile(change: (scenario: Record<string, unknown>) => void): string {
  const scenario = structuredClone(partialRefund) as unknown as Record<string, unknown>;
  scenario.id = 'mine/refund';
  change(scenario);
  const file = join(tempDir('scenario'), 'mine.json');
  writeFileSync(file, JSON.stringify(scenario));
  return file;
}

describe('a bad input refused before anything runs or is written', () => {
  let prev: string;
  let before: Record<string, string>;
  beforeAll(async () => {
    prev = await previousSet();
    before = snapshot(prev);
  }, 120_000);

  it('an unknown world: exit 2 naming file and field; the previous set untouched', async () => {
    const file = scenarioFile((s) => {
      (s.world as Record<string, unknown>).name = 'bank';
    });

    const ran = await faultlineInProcess(
      [...SMALL, 'mine/*', '--scenarios', file, '--out', prev],
      SLOW,
    );

    expectInputError(ran, /world\.name: unknown world "bank" \(known: refunds, /, 'run');
    expect(ran.stderr).toContain(`scenario file ${file} ((file))`);
    expect(snapshot(prev)).toEqual(before);
  }, 120_000);

  it('a fault plan that cannot fire in its world: exit 2, the previous set untouched', async () => {
    const file = scenarioFile((s) => {
      s.faultPlans = [
        {
          id: 'typo',
          faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'issue_refnd', nth: 1 } }],
        },
      ];
    });

    const ran = await faultlineInProcess([...SMALL, '--scenarios', file, '--out', prev], SLOW);

    expectInputError(ran, /the world has no tool "issue_refnd"/, 'run');
    expect(snapshot(prev)).toEqual(before);
  }, 120_000);

  it('a regression file whose plan cannot fire: refused before the first case, not after the last', async () => {
    const regressions = tempDir('regressions');
    writeFileSync(
      join(regressions, 'broken.json'),
      JSON.stringify({
        format: 'faultline-regression',
        version: 1,
        scenario: 'refunds/full-refund',
        seed: 1,
        faultPlan: {
          id: 'found-1',
          faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'no_such_tool', nth: 1 } }],
        },
      }),
    );

    const ran = await faultlineInProcess(
      [...SMALL, '--regressions', regressions, '--out', prev],
      SLOW,
    );

    expectInputError(
      ran,
      /regression file .*broken\.json: .*the world has no tool "no_such_tool"/,
      'run',
    );
    expect(snapshot(prev)).toEqual(before);
  }, 120_000);

  it('a regression file reusing a plan id of its scenario: refused, not a set with an id twice', async () => {
    const regressions = tempDir('regressions');
    writeFileSync(
      join(regressions, 'again.json'),
      JSON.stringify({
        format: 'faultline-regression',
        version: 1,
        scenario: 'refunds/full-refund',
        seed: 1,
        faultPlan: {
          id: 'refund-timeout',
          faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }],
        },
      }),
    );

    const ran = await faultlineInProcess(
      [...SMALL, '--regressions', regressions, '--out', prev],
      SLOW,
    );

    expectInputError(
      ran,
      /regression file .*again\.json: faultPlan\.id "refund-timeout" is already a fault plan of refunds\/full-refund/,
      'run',
    );
    expect(snapshot(prev)).toEqual(before);
  }, 120_000);

  it('a resume with another seed or agent: refused naming the difference, nothing written', async () => {
    const seed = await faultlineInProcess(
      [...SMALL, '--resume', '--seed', '3', '--out', prev],
      SLOW,
    );
    expectInputError(
      seed,
      /^faultline run: --resume: the set in .* was made with other options: --seed unset \(this resume: 3\); /,
    );
    const agent = await faultlineInProcess(
      [...SMALL, '--resume', '--agent', 'naive-chat-loop', '--plan', 'none', '--out', prev],
      SLOW,
    );
    expectInputError(
      agent,
      /other options: --agent reference \(this resume: naive-chat-loop\), --plan unset \(this resume: none\);/,
    );
    expect(snapshot(prev)).toEqual(before);
  }, 120_000);

  it('a resume with the same options keeps every run and makes none', async () => {
    const ids = readResults(prev).results.map((r) => r.id);

    const ran = await faultlineInProcess([...SMALL, '--resume', '--out', prev], SLOW);

    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`resumed: ${ids.length} finished run(s) kept, 0 run now`);
    expect(readResults(prev).results.map((r) => r.id)).toEqual(ids);
  }, 120_000);
});

describe('a fresh run over a previous set', () => {
  it('replaces it whole: records, trajectories and the options it was made with', async () => {
    const out = await previousSet();
    const old = readResults(out).results;

    const ran = await faultlineInProcess([...SMALL, '--plan', 'none', '--out', out], SLOW);

    expect(ran.status, ran.stderr).toBe(0);
    const now = readResults(out).results;
    expect(now.map((r) => r.faultPlanId)).toEqual(['none']);
    expect(old.length).toBeGreaterThan(1);
    // The old set's other trajectories went with it; nothing pending is left behind.
    expect(readdirSync(join(out, 'trajectories'))).toEqual([now[0]!.trajectoryFile.split('/')[1]]);
    expect(existsSync(join(out, '.pending'))).toBe(false);
    expect(existsSync(join(out, '.lock'))).toBe(false);
    const set = JSON.parse(readFileSync(join(out, 'set.json'), 'utf8')) as {
      options: { plan: string };
    };
    expect(set.options.plan).toBe('none');
  }, 120_000);

  it('over an unfinished set (a killed run), says it replaced it', async () => {
    const out = await previousSet();
    // What a run killed after its first record leaves: a pending set of one run.
    const pending = join(out, '.pending');
    mkdirSync(pending);
    const first = readFileSync(join(out, 'results.jsonl'), 'utf8').split('\n')[0]!;
    writeFileSync(join(pending, 'results.jsonl'), `${first}\n`);
    writeFileSync(join(pending, 'set.json'), readFileSync(join(out, 'set.json')));

    const fresh = await faultlineInProcess([...SMALL, '--out', out], SLOW);

    expect(fresh.status, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain(
      `replaced an unfinished set of 1 run(s) in ${out} (--resume would have kept them)`,
    );
  }, 120_000);
});

/** The definition of a reference-agent set of the whole library, regressions in `out`. */
function setDefinition(out: string) {
  return {
    agent: 'reference',
    agentModule: null,
    agentVersion: null,
    mode: null,
    faults: 'all',
    plan: null,
    trials: 1,
    seed: null,
    globs: [],
    shard: null,
    scenarios: [],
    regressions: join(out, 'regressions'),
    model: null,
    promptHash: null,
    temperature: null,
    modelSeed: null,
  };
}

describe('a commit a kill interrupted', () => {
  it('is finished by the next writer: the new set whole, its trajectories in place, the old ones gone', () => {
    const out = tempDir('commit');
    const definition = setDefinition(out);
    const old = record('refunds/partial-refund');
    const lock = FolderLock.take(out, 'run');
    try {
      let pending = openPendingSet(out, definition, false);
      writeTrajectory(pending.dir, old.trajectoryFile);
      const first = new ResultsWriter(pending.dir, { fresh: false });
      first.appendRecord(old);
      first.close();
      commitPendingSet(out);
      // A new set, complete, whose commit is cut short after its trajectories moved.
      const now = record('refunds/full-refund');
      pending = openPendingSet(out, definition, false);
      writeTrajectory(pending.dir, now.trajectoryFile);
      const second = new ResultsWriter(pending.dir, { fresh: false });
      second.appendRecord(now);
      second.close();
      writeFileSync(join(pending.dir, 'commit'), '');
      renameSync(join(pending.dir, now.trajectoryFile), join(out, now.trajectoryFile));

      const resumed = openPendingSet(out, definition, true);

      expect(resumed.kept.map((r) => r.id)).toEqual([now.id]);
      expect(readResults(out).results.map((r) => r.id)).toEqual([now.id]);
      expect(readdirSync(join(out, 'trajectories'))).toEqual([now.trajectoryFile.split('/')[1]]);
    } finally {
      lock.release();
    }
  });
});

describe('a commit into a folder with no set yet', () => {
  /**
   * Commits, into a fresh folder, a set of one run whose pending stores/ holds `stores` (name →
   * content); returns the folder.
   */
  function commitWithStores(stores: Record<string, string>): { out: string; trajectory: string } {
    const out = tempDir('fresh-commit');
    const lock = FolderLock.take(out, 'run');
    try {
      const now = record('refunds/full-refund');
      const pending = openPendingSet(out, setDefinition(out), false);
      writeTrajectory(pending.dir, now.trajectoryFile);
      mkdirSync(join(pending.dir, 'stores'));
      for (const [name, content] of Object.entries(stores))
        writeFileSync(join(pending.dir, 'stores', name), content);
      const writer = new ResultsWriter(pending.dir, { fresh: false });
      writer.appendRecord(now);
      writer.close();
      commitPendingSet(out);
      return { out, trajectory: now.trajectoryFile.split('/')[1]! };
    } finally {
      lock.release();
    }
  }

  it('moves the stores with their own -wal files, and leaves what a killed writer left behind', () => {
    const { out, trajectory } = commitWithStores({
      'a.db': 'a',
      'a.db-wal': 'w',
      'b.db': 'b',
      // A store file's temporary twin, from a writer killed mid-write, and a stray -wal.
      'c.db.123.tmp': 'half',
      'd.db-wal': 'stray',
    });

    expect(readdirSync(join(out, 'stores')).sort()).toEqual(['a.db', 'a.db-wal', 'b.db']);
    expect(readdirSync(join(out, 'trajectories'))).toEqual([trajectory]);
    expect(existsSync(join(out, '.pending'))).toBe(false);
  });

  it('moves a folder of nothing but stores whole', () => {
    const { out } = commitWithStores({ 'a.db': 'a', 'a.db-shm': 's' });

    expect(readdirSync(join(out, 'stores')).sort()).toEqual(['a.db', 'a.db-shm']);
    expect(readFileSync(join(out, 'stores', 'a.db'), 'utf8')).toBe('a');
  });
});

/** A hand-made record whose trajectory file is named as a run's is. */
function record(scenarioId: string): RunResult {
  const r = runRecord({ scenarioId });
  return { ...r, trajectoryFile: trajectoryFileFor(r.id) };
}

function writeTrajectory(dir: string, file: string): void {
  mkdirSync(join(dir, 'trajectories'), { recursive: true });
  writeFileSync(join(dir, file), '{}');
}
