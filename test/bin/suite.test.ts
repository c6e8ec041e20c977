import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTO_WORKERS_FROM, autoWorkers } from '../../bin/run-suite.js';
import { runCase, suiteCases } from '../../bin/suite.js';
import { readResults, type RunResult } from '../../reports/results.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { FAULTLINE_BIN, faultlineInProcess, tempDir, ROOT } from '../support/cli.js';

/** A small suite with faults, crashes and trials: refunds only, two trials each. */
const SUITE = ['run', 'refunds/*', '--trials', '2'];
/** A whole suite takes longer than the usual minute on a slow machine. */
const SLOW = { timeout: 120_000 };

/** The records minus wall-clock time, the one thing a rerun may change. */
function comparable(dir: string): Omit<RunResult, 'figures'>[] {
  return readResults(dir).results.map((r) => {
    const { wallMs: _wall, ...figures } = r.figures;
    return { ...r, figures };
  });
}

/** The small suite run serially, once for the file: what workers, shards and a resume must give. */
let serial: string;

beforeAll(async () => {
  serial = tempDir('suite');
  const ran = await faultlineInProcess([...SUITE, '--out', serial], SLOW);
  expect(ran.status, ran.stderr).toBe(0);
}, 120_000);

describe('faultline run --workers by default', () => {
  it('runs a large suite in one thread per core but one, up to four; a small one, or on two cores, here', () => {
    expect(autoWorkers(AUTO_WORKERS_FROM - 1, 8)).toBe(1);
    expect([1, 2, 3, 4, 5, 8, 64].map((cores) => autoWorkers(AUTO_WORKERS_FROM, cores))).toEqual([
      1, 1, 2, 3, 4, 4, 4,
    ]);
  });
});

describe('faultline run: serial, workers, shards', () => {
  it('stores one record per run, each with its trajectory, in suite order', () => {
    const results = readResults(serial).results;
    expect(results.length).toBeGreaterThan(20);
    expect(results.map((r) => r.index)).toEqual(results.map((_, i) => i));
    expect(new Set(results.map((r) => r.id)).size).toBe(results.length);
    expect(results.filter((r) => r.trial === 1).length).toBe(results.length / 2);
    for (const r of results.slice(0, 3)) {
      const t = JSON.parse(readFileSync(join(serial, r.trajectoryFile), 'utf8')) as {
        scenarioId: string;
        seed: number;
      };
      expect(t).toMatchObject({ scenarioId: r.scenarioId, seed: r.seed });
    }
  });

  it('gives the same results with --workers 2', async () => {
    const dir = tempDir('suite');
    const ran = await faultlineInProcess([...SUITE, '--workers', '2', '--out', dir], SLOW);
    expect(ran.status, ran.stderr).toBe(0);
    expect(comparable(dir)).toEqual(comparable(serial));
  }, 120_000);

  it('gives the same results sharded in three and merged', async () => {
    const shards: string[] = [];
    for (const i of [1, 2, 3]) {
      const dir = tempDir('suite');
      const ran = await faultlineInProcess([...SUITE, '--shard', `${i}/3`, '--out', dir], SLOW);
      expect(ran.status, ran.stderr).toBe(0);
      shards.push(dir);
    }
    const sizes = shards.map((d) => readResults(d).results.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    const merged = tempDir('suite');
    const ran = await faultlineInProcess(['merge', ...shards, '--out', merged], SLOW);
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`merged ${sizes.reduce((a, b) => a + b, 0)} run(s) from 3`);
    expect(comparable(merged)).toEqual(comparable(serial));
    // Merging a shard with itself is refused: the same run twice.
    const twice = await faultlineInProcess(
      ['merge', shards[0]!, shards[0]!, '--out', tempDir('suite')],
      SLOW,
    );
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/is in both/);
  }, 240_000);

  it('refuses a bad shard', async () => {
    const ran = await faultlineInProcess(
      [...SUITE, '--shard', '4/3', '--out', tempDir('suite')],
      SLOW,
    );
    expect(ran.status).toBe(2);
    expect(ran.stderr.trim()).toBe('faultline run: --shard must be I/N with 1 ≤ I ≤ N (got "4/3")');
  });
});

describe('faultline run killed mid-suite and resumed', () => {
  it('loses no finished run, duplicates none, and never costs the previous set', async () => {
    const dir = tempDir('suite');
    // A previous set in the folder: the killed run must leave it whole.
    expect(
      (await faultlineInProcess(['run', 'refunds/full-refund', '--out', dir], SLOW)).status,
    ).toBe(0);
    const previous = readFileSync(join(dir, 'results.jsonl'), 'utf8');
    const child = spawn(process.execPath, [FAULTLINE_BIN, ...SUITE, '--out', dir], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let seen = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        // Kill for real once a third of the runs have finished.
        if (/\[8\/\d+\]/.test(seen) && child.exitCode === null) {
          child.kill('SIGKILL');
        }
      });
      child.on('exit', () => {
        resolve();
      });
    });
    expect(child.signalCode).toBe('SIGKILL');
    expect(readFileSync(join(dir, 'results.jsonl'), 'utf8')).toBe(previous);
    const pending = join(dir, '.pending');
    const before = readResults(pending, { allowTruncatedTail: true }).results.length;
    expect(before).toBeGreaterThanOrEqual(8);
    // The killed run's lock is stale; a trajectory it was writing is left as a temp file.
    expect(existsSync(join(dir, '.lock'))).toBe(true);
    const leftover = join(pending, 'trajectories', `cut-short.json.${child.pid ?? 0}.tmp`);
    writeFileSync(leftover, '{"scenar');

    const resumed = await faultlineInProcess([...SUITE, '--resume', '--out', dir], SLOW);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/resumed: \d+ finished run\(s\) kept/);
    // The same as the uninterrupted serial run (whose exit status the file's beforeAll checks).
    expect(comparable(dir)).toEqual(comparable(serial));
    expect(readdirSync(join(dir, 'trajectories')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(pending)).toBe(false);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  }, 240_000);

  it('repairs a record cut short by the kill', async () => {
    const dir = tempDir('suite');
    expect(
      (await faultlineInProcess(['run', 'refunds/full-refund', '--out', dir], SLOW)).status,
    ).toBe(0);
    const file = join(dir, 'results.jsonl');
    const text = readFileSync(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    // Cut the last record in half, as a kill mid-write would.
    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 40)}`);
    expect(() => readResults(dir)).toThrow(
      new RegExp(`results\\.jsonl:${lines.length}: truncated`),
    );
    const resumed = await faultlineInProcess(
      ['run', 'refunds/full-refund', '--resume', '--out', dir],
      SLOW,
    );
    expect(resumed.status, resumed.stderr).toBe(0);
    const fullRefund = BUILT_IN_SCENARIOS.find((s) => s.id === 'refunds/full-refund')!;
    expect(readResults(dir).results.map((r) => r.faultPlanId)).toEqual([
      'none',
      ...fullRefund.faultPlans.map((p) => p.id),
    ]);
  });
});

describe('suite cases in another autonomy mode', () => {
  it.each(['shadow', 'recommend'] as const)(
    '%s: every write is only proposed, nothing changes in the world, and the run passes',
    async (mode) => {
      const cases = await suiteCases({
        globs: ['crm/update-contact', 'refunds/full-refund'],
        agent: 'reference',
        mode,
        faults: 'none',
        trials: 1,
        scenarioFiles: [],
        regressions: tempDir('no-regressions'),
      });
      expect(cases.map((c) => c.scenario.id)).toEqual([
        'refunds/full-refund',
        'crm/update-contact',
      ]);
      for (const c of cases) {
        // Both scenarios check the world after their writes before they may finish.
        expect(c.scenario.blueprint.completion.length).toBeGreaterThan(0);
        const { result, trajectory } = await runCase(c, 'reference', tempDir('mode'));
        expect({ id: c.scenario.id, state: result.state, pass: result.pass }).toEqual({
          id: c.scenario.id,
          state: 'completed',
          pass: true,
        });
        expect(trajectory.ledger.filter((e) => e.runId === trajectory.runId)).toEqual([]);
      }
    },
  );
});

describe('suite cases in shadow and recommend mode keep the stops that need no write', () => {
  it.each(['shadow', 'recommend'] as const)(
    '%s: a model-spend cap reached and a credential expired on a read still stop the run, with no effect',
    async (mode) => {
      const cases = await suiteCases({
        globs: ['cmdb/model-budget', 'cmdb/nightly-sync', 'cmdb/sync-quota'],
        agent: 'reference',
        mode,
        faults: 'all',
        trials: 1,
        scenarioFiles: [],
        regressions: tempDir('no-regressions'),
      });
      const wanted = new Map([
        ['cmdb/model-budget|none', 'failed budget-exhausted'],
        ['cmdb/nightly-sync|token-expires', 'blocked permission-lost'],
        // A cap on calls is spent by writes, which the mode never sends: the run completes.
        ['cmdb/sync-quota|none', 'completed null'],
      ]);
      for (const c of cases) {
        const want = wanted.get(`${c.scenario.id}|${c.faultPlan.id}`);
        if (want === undefined) continue;
        wanted.delete(`${c.scenario.id}|${c.faultPlan.id}`);
        const { result } = await runCase(c, 'reference', tempDir('mode'));
        expect({
          id: `${c.scenario.id} / ${c.faultPlan.id}`,
          end: `${result.state} ${result.stopReason}`,
          effects: result.figures.effects,
          pass: result.pass,
        }).toEqual({
          id: `${c.scenario.id} / ${c.faultPlan.id}`,
          end: want,
          effects: 0,
          pass: true,
        });
      }
      expect([...wanted.keys()]).toEqual([]);
    },
    60_000,
  );

  it('shadow: a mutant that reads on after its credential expired fails the run', async () => {
    const cases = await suiteCases({
      globs: ['cmdb/nightly-sync'],
      agent: 'ignores-revocation',
      mode: 'shadow',
      faults: 'all',
      plan: 'token-expires',
      trials: 1,
      scenarioFiles: [],
      regressions: tempDir('no-regressions'),
    });
    expect(cases).toHaveLength(1);
    const { result } = await runCase(cases[0]!, 'ignores-revocation', tempDir('mode'));
    expect(result.pass).toBe(false);
    expect(result.grades.policy?.pass).toBe(false);
  });
});

describe('faultline run --mode: a plan that cannot apply in the mode is skipped, with a note', () => {
  it('bounded: a plan failing a second approval (bounded asks one) is listed, every other run made', async () => {
    const out = tempDir('mode');
    const ran = await faultlineInProcess([
      'run',
      'refunds/supervised-refund',
      '--mode',
      'bounded',
      '--out',
      out,
    ]);
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    const scenario = BUILT_IN_SCENARIOS.find((s) => s.id === 'refunds/supervised-refund')!;
    const plans = ['none', ...scenario.faultPlans.map((p) => p.id)];
    expect(readResults(out).results.map((r) => r.faultPlanId)).toEqual(
      plans.filter((p) => p !== 'message-refused'),
    );
    expect(ran.stdout).toContain(
      'Skipped: 1 fault plan(s) cannot apply in bounded mode\n' +
        '  - refunds/supervised-refund / message-refused: faultPlans[message-refused].faults[0].trigger.nth: the scenario asks for at most 1 approval(s), so approval 2 never comes',
    );
    expect(ran.stdout).toContain(
      `${plans.length - 1} run(s) of 1 scenario(s): ${plans.length - 1} passed, 0 failed, 1 fault plan(s) skipped (not applicable)`,
    );
  });

  it.each(['shadow', 'recommend'])(
    '%s: plans whose faults fire only on writes or approvals are skipped, the rest run to the end',
    async (mode) => {
      const out = tempDir('mode');
      const ran = await faultlineInProcess([
        'run',
        'refunds/*',
        '--mode',
        mode,
        '--out',
        out,
        '--reporter',
        'json',
      ]);
      expect(ran.stderr).toBe('');
      const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as {
        results: RunResult[];
        notApplicable: { scenarioId: string; faultPlanId: string; reasons: string[] }[];
      };
      const planned = BUILT_IN_SCENARIOS.filter((s) => s.id.startsWith('refunds/')).reduce(
        (n, s) => n + 1 + s.faultPlans.length,
        0,
      );
      // Every plan either ran or is listed as skipped: none is lost, none aborts the suite.
      expect(report.results.length + report.notApplicable.length).toBe(planned);
      expect(readResults(out).results).toHaveLength(report.results.length);
      expect(report.notApplicable).toContainEqual({
        scenarioId: 'refunds/full-refund',
        faultPlanId: 'refund-refused',
        mode,
        reasons: [
          `faults[0] (approval-denied) fires on approval 1, and ${mode} mode asks for none`,
        ],
      });
      expect(ran.stdout).toContain(
        `skipped: ${report.notApplicable.length} fault plan(s) cannot apply in ${mode} mode (listed in the reports)`,
      );
      // A stale record at step 2 of a run that, reading only, makes one call never comes.
      expect(report.notApplicable).toContainEqual({
        scenarioId: 'refunds/partial-refund',
        faultPlanId: 'refunded-elsewhere',
        mode,
        reasons: [
          `faults[0] (stale-record) fires at step 2, and the fault-free run in ${mode} mode ends after 1 call(s)`,
        ],
      });
      // A plan run in the mode expects what the mode allows: no effect, whatever it expected.
      for (const r of report.results) expect(r.figures.effects).toBe(0);
      expect(report.results.filter((r) => r.mismatches.length > 0)).toEqual([]);
      // The reference does the right thing in every run made: none fails.
      expect(
        report.results.filter((r) => !r.pass).map((r) => `${r.scenarioId} / ${r.faultPlanId}`),
      ).toEqual([]);
    },
    120_000,
  );
});
