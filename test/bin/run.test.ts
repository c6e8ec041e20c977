import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../runtime/store.js';
import { AUTO_WORKERS_FROM, autoWorkers } from '../../bin/run-suite.js';
import { knownScenarios } from '../../bin/suite.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import {
  faultline,
  faultlineInProcess,
  expectInputError,
  tempDir,
  type Ran,
} from '../support/cli.js';
import { expectNoneNotNeeded, loadProbe } from '../support/load-probe.js';

/**
 * Every run of the default suite, in order: each scenario without faults, then each of its
 * fault plans — the hand-written library, then the τ-bench retail test tasks.
 */
const DEFAULT_SCENARIOS = knownScenarios([]);
const SUITE: [string, string, number][] = DEFAULT_SCENARIOS.flatMap((sc) =>
  ['none', ...sc.faultPlans.map((p) => p.id)].map((plan): [string, string, number] => [
    sc.id,
    plan,
    sc.world.seed,
  ]),
);
const storeName = ([id, plan, seed]: [string, string, number]): string =>
  `${id.replace('/', '_')}${plan === 'none' ? '' : `_${plan}`}_${seed}.db`;

/** The command (in process), with `run`'s result set (and its run stores) in a fresh directory, `out`. */
async function faultlineFresh(...args: string[]): Promise<Ran & { out: string }> {
  const out = tempDir('cli');
  return { ...(await faultlineInProcess(args[0] === 'run' ? [...args, '--out', out] : args)), out };
}

function storeFiles(out: string): string[] {
  const dir = join(out, 'stores');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.db'))
        .sort()
    : [];
}

/** The table rows (lines that start with a border and name a scenario), as [id, plan, result]. */
function rows(stdout: string): [string, string, string][] {
  return stdout
    .split('\n')
    .filter((line) => /^│ [a-z0-9-]+\/[a-z0-9-]+ /.test(line))
    .map((line) => {
      const cells = line.split('│').map((c) => c.trim());
      return [cells[1]!, cells[2]!, cells.at(-2)!];
    });
}

/** One line on stderr, nothing on stdout, nothing written, exit 2. */
function expectUsageError(ran: Ran & { out: string }, pattern: RegExp): void {
  expectInputError(ran, pattern);
  expect(readdirSync(ran.out)).toEqual([]);
}

describe('faultline run (whole suite, default options)', () => {
  let ran: Ran & { out: string };
  // The real binary, spawned: the whole library's run costs far more than starting Node, and
  // this proves `npx faultline run` itself (exit status, nothing else on stderr) end to end. It
  // carries the module probe (load-probe.ts): what this start and its worker threads load.
  const probe = loadProbe('run');
  beforeAll(() => {
    // The whole default suite is 1,500-odd runs: minutes on a loaded machine.
    const out = tempDir('cli');
    ran = {
      ...faultline(['run', '--out', out], {
        timeout: 600_000,
        nodeArgs: probe.nodeArgs,
        env: probe.env,
      }),
      out,
    };
  }, 600_000);

  it('exits 0 with nothing on stderr', () => {
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
  });

  it('prints a table row for each run of the suite, in order, each passing', () => {
    expect(rows(ran.stdout)).toEqual(SUITE.map(([id, plan]) => [id, plan, 'pass']));
    expect(ran.stdout).not.toContain('FAIL');
    expect(ran.stdout).toMatch(/│ pass\^1 +│ +│ 100% +│ 100% +│/);
    expect(ran.stdout).toMatch(/│ total +│ +│ (\d+)\/\1 +│/);
  });

  it('reports progress per scenario and a summary naming where the results went', () => {
    // A suite this size may run in threads (see autoWorkers): runs are counted as they finish,
    // whatever the order.
    const lines = [...ran.stdout.matchAll(/^\[(\d+)\/(\d+)\] ok {3}(\S+) \/ (\S+) → /gm)];
    expect(lines.map((m) => Number(m[1]))).toEqual(SUITE.map((_, i) => i + 1));
    expect(new Set(lines.map((m) => m[2]))).toEqual(new Set([String(SUITE.length)]));
    expect(lines.map((m) => `${m[3]} / ${m[4]}`).sort()).toEqual(
      SUITE.map(([id, plan]) => `${id} / ${plan}`).sort(),
    );
    expect(ran.stdout).toContain(
      `${SUITE.length} run(s) of ${DEFAULT_SCENARIOS.length} scenario(s): ${SUITE.length} passed, 0 failed`,
    );
    expect(ran.stdout.trimEnd().endsWith(`results in ${ran.out}/results.jsonl`)).toBe(true);
  });

  it('loads neither the model stack, fast-check nor an HTTP server', () => {
    const urls = probe.urls();

    // The probe sees the command's own imports, and its threads' where it starts any (one per
    // core but one: none on two cores; replay-offline.test's `--workers 2` spawn probes threads
    // everywhere): its silence below is not a blind hook's.
    expect(SUITE.length).toBeGreaterThanOrEqual(AUTO_WORKERS_FROM);
    expect(urls.some((u) => /\/scenarios\/engine\.(js|ts)$/.test(u))).toBe(true);
    expect(urls.some((u) => /\/bin\/worker-main\.(js|ts)$/.test(u))).toBe(
      autoWorkers(SUITE.length) > 1,
    );
    expectNoneNotNeeded(urls);
  });

  it('prints no colour codes when NO_COLOR is set and stdout is not a terminal', () => {
    expect(ran.stdout).not.toContain('\u001b[');
  });

  // 1,500-odd stores opened one after another: seconds alone, far longer on a loaded machine.
  // Read only, so opened without the syncs a writer needs (each open and close of a store file
  // otherwise waits on the disk three times) and without a `-shm` file: half the time.
  it(
    'writes one store file per run, each holding that run and its final state',
    { timeout: 120_000 },
    () => {
      const files = storeFiles(ran.out);

      expect(files).toEqual(SUITE.map(storeName).sort());
      const states = files.map((f) => {
        const store = RunStore.open(join(ran.out, 'stores', f), { sync: 'off', exclusive: true });
        try {
          return store.listRuns().map((r) => [r.id, r.state]);
        } finally {
          store.close();
        }
      });
      expect(states).toContainEqual([['refunds/full-refund#7', 'completed']]);
      expect(states).toContainEqual([['refunds/approval-denied#7', 'failed']]);
      expect(states.every((s) => s.length === 1)).toBe(true);
    },
  );
});

describe('faultline run with scenario globs', () => {
  it('runs just the scenario named by id', async () => {
    const ran = await faultlineFresh('run', 'refunds/full-refund', '--plan', 'none');

    expect(ran.status).toBe(0);
    expect(rows(ran.stdout)).toEqual([['refunds/full-refund', 'none', 'pass']]);
    expect(ran.stdout).toContain('1 run(s) of 1 scenario(s): 1 passed, 0 failed');
    expect(storeFiles(ran.out)).toEqual(['refunds_full-refund_7.db']);
  });

  it('runs the scenarios a glob matches, and only those', async () => {
    const ran = await faultlineFresh('run', 'refunds/*-refund', '--plan', 'none');

    expect(ran.status).toBe(0);
    const matching = DEFAULT_SCENARIOS.map((s) => s.id).filter((id) =>
      /^refunds\/[^/]*-refund$/.test(id),
    );
    expect(matching).toEqual(
      expect.arrayContaining(['refunds/full-refund', 'refunds/partial-refund']),
    );
    expect(matching).not.toContain('refunds/approval-denied');
    expect(rows(ran.stdout).map(([id]) => id)).toEqual(matching);
    expect(storeFiles(ran.out)).toHaveLength(matching.length);
  });

  it('leaves out what a !glob names: the library alone, without the τ-bench tasks', async () => {
    const ran = await faultlineFresh('run', '!tau-retail/*', '!refunds', '--plan', 'none');

    expect(ran.status).toBe(0);
    const ids = rows(ran.stdout).map(([id]) => id);
    expect(ids).toEqual(
      DEFAULT_SCENARIOS.map((s) => s.id).filter((id) => !/^(tau-retail|refunds)\//.test(id)),
    );
    expect(ids).toContain('crm/update-contact');
  });

  it('exits 2 naming a glob that matches nothing, and writes nothing', async () => {
    const ran = await faultlineFresh('run', 'nope/*');

    expectUsageError(ran, /^faultline run: no scenario matches nope\/\*/);
  });
});

describe('faultline run when a run does not end as expected', () => {
  // A user's scenario file whose expectation is wrong: it says the refund is forbidden, but the
  // contract allows it, so the run completes where the scenario expects a safe stop.
  it('exits 1, marks the run FAIL and says what differed and how to replay it', async () => {
    const dir = tempDir('scenario');
    const file = join(dir, 'wrong-expectation.json');
    const scenario = { ...structuredClone(partialRefund), id: 'mine/wrong-expectation' } as Record<
      string,
      unknown
    >;
    scenario.faultPlans = [];
    scenario.expected = {
      state: 'failed',
      stopReason: 'approval-denied',
      world: { path: 'effects.length', op: 'eq', value: 0 },
    };
    writeFileSync(file, JSON.stringify(scenario));

    const ran = await faultlineFresh('run', 'mine/*', '--scenarios', file, '--seed', '3');

    expect(ran.status).toBe(1);
    expect(rows(ran.stdout)).toEqual([['mine/wrong-expectation', 'none', 'FAIL']]);
    expect(ran.stdout).toContain('✗ mine/wrong-expectation / none · trial 0 · seed 3');
    expect(ran.stdout).toContain('    mismatch: state: expected failed, got completed');
    // A false claim of success is one mismatch (the state), not a second about the reason.
    expect(ran.stdout).not.toContain('mismatch: stop reason');
    expect(ran.stdout).toMatch(/^ {4}mismatch: world: expected effects\.length eq 0/m);
    expect(ran.stdout).toMatch(
      /^ {4}replay: npx faultline run mine\/wrong-expectation --plan none --seed 3$/m,
    );
    expect(ran.stdout).toContain(
      '    outcome · claimed-success-not-in-world: the agent reported success; the run should have ended failed (approval-denied)',
    );
    expect(ran.stdout).toContain('1 run(s) of 1 scenario(s): 0 passed, 1 failed');
    expect(storeFiles(ran.out)).toEqual(['mine_wrong-expectation_3.db']);
  });

  it('refuses a scenario file with a mistake, naming the file and field, and runs nothing', async () => {
    const dir = tempDir('scenario');
    const file = join(dir, 'broken.json');
    writeFileSync(
      file,
      JSON.stringify({ ...structuredClone(partialRefund), id: 'mine/broken', tier: 'urgent' }),
    );

    const ran = await faultlineFresh('run', '--scenarios', file);

    expect(ran.status).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toContain(`scenario file ${file} ((file))`);
    expect(ran.stderr).toContain('tier: Invalid option');
    expect(storeFiles(ran.out)).toEqual([]);
  });
});

describe('faultline run refuses a scenario that could only fail for a typo', () => {
  /** The partial refund as a user's scenario file, changed by `change`. */
  function scenarioFile(change: (scenario: Scenario) => void): string {
    const scenario = structuredClone(partialRefund);
    scenario.id = 'mine/refund';
    change(scenario);
    const file = join(tempDir('scenario'), 'mine.json');
    writeFileSync(file, JSON.stringify(scenario));
    return file;
  }

  it.each([
    [
      'a step calling an unknown tool',
      (s: Scenario) => (s.blueprint.operations[1]!.tool = 'issue_refnd'),
      /blueprint\.operations\[1\]\.tool: world refunds has no tool "issue_refnd"/,
    ],
    [
      'a $ref to a missing operation',
      (s: Scenario) =>
        (s.blueprint.operations[1]!.args.amount_cents = { $ref: 'ordr.total_cents' }),
      /blueprint\.operations\[1\] \(refund\): \$ref "ordr" names no operation of the blueprint/,
    ],
    [
      'a contract allowing an unknown tool',
      (s: Scenario) =>
        (s.contract.authority.tools.wire_money = s.contract.authority.tools.issue_refund!),
      /contract\.authority\.tools\.wire_money: world refunds has no tool "wire_money"/,
    ],
    [
      'an id a built-in scenario has',
      (s: Scenario) => (s.id = 'refunds/partial-refund'),
      /^faultline run: --scenarios .*mine\.json: id "refunds\/partial-refund" is already a built-in scenario; give the scenario an id of its own$/,
    ],
  ])(
    '%s: exit 2 with one line naming file and field, nothing written',
    async (_, change, pattern) => {
      const file = scenarioFile(change);

      const ran = await faultlineFresh(
        'run',
        'mine/*',
        'refunds/partial-refund',
        '--scenarios',
        file,
      );

      expectUsageError(ran, pattern);
    },
  );
});

describe('faultline usage', () => {
  it('run --help exits 0 and prints the run usage', async () => {
    const ran = await faultlineFresh('run', '--help');

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/^Usage: faultline run \[scenario globs…\] \[options\]/);
    expect(ran.stdout).toContain('--seed N');
    expect(ran.stdout).toContain('--out DIR');
    expect(ran.stderr).toBe('');
    expect(readdirSync(ran.out)).toEqual([]);
  });

  it('--help exits 0 and lists the commands', async () => {
    const ran = await faultlineFresh('--help');

    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('Usage: faultline <command> [options]');
    expect(ran.stdout).toMatch(/^ {2}run \[globs…\]/m);
    expect(ran.stderr).toBe('');
  });

  it('exits 2 with one line on stderr for an unknown option', async () => {
    const ran = await faultlineFresh('run', '--bogus');

    expectUsageError(ran, /^faultline run: Unknown option '--bogus'/);
  });

  it('exits 2 for a seed that is not a whole number, saying what it got', async () => {
    const ran = await faultlineFresh('run', '--seed', 'abc');

    expectUsageError(ran, /^faultline run: --seed must be a whole number ≥ 0 \(got "abc"\)$/);
  });

  it('exits 2 for an unknown command, listing the known ones', async () => {
    const ran = await faultlineFresh('frobnicate');

    expect(ran.status).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.trimEnd().split('\n')).toEqual([
      'faultline: unknown command "frobnicate" (commands: run, list, show, compare, promote, merge, matrix, explore, serve, record, passk)',
    ]);
  });
});

describe('faultline run --agent', () => {
  it('runs a flawed agent of the zoo, exits 1, and replays with the same agent', async () => {
    const ran = await faultlineFresh(
      'run',
      'refunds/partial-refund',
      '--plan',
      'refund-ack-lost',
      '--agent',
      'naive-chat-loop',
    );

    expect(ran.status).toBe(1);
    expect(rows(ran.stdout)).toEqual([['refunds/partial-refund', 'refund-ack-lost', 'FAIL']]);
    expect(ran.stdout).toContain(
      '    integrity · duplicate-effect: refund:ord_4:2500 applied 2 times',
    );
    expect(ran.stdout).toContain('    recovery · unreconciled-retry: issue_refund');
    expect(ran.stdout).toMatch(
      /^ {4}replay: npx faultline run refunds\/partial-refund --plan refund-ack-lost --seed 7 --agent naive-chat-loop$/m,
    );
  });

  it('exits 2 naming an unknown agent and the ones there are', async () => {
    expectUsageError(
      await faultlineFresh('run', '--agent', 'bogus'),
      /^faultline run: --agent: unknown agent "bogus" \(agents: reference, naive-chat-loop, .*; or a module path such as \.\/my-agent\.ts\)$/,
    );
  });
});

describe('faultline run --mode supervised', () => {
  // Every write waits for a person in supervised mode, the undo after a cancellation included:
  // the policy grader holds the runtime to that, so these scenarios fail if the undo goes out
  // without an approval.
  it('passes the scenarios that compensate after a cancellation, each undo approved first', async () => {
    const ran = await faultlineFresh(
      'run',
      'crm/merge-duplicates',
      'expenses/withdrawn-claim',
      '--mode',
      'supervised',
    );

    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    const compensating = rows(ran.stdout).filter(([, plan]) =>
      ['cancelled-after-merge', 'withdrawn-after-payout'].includes(plan),
    );
    expect(compensating).toEqual([
      ['crm/merge-duplicates', 'cancelled-after-merge', 'pass'],
      ['expenses/withdrawn-claim', 'withdrawn-after-payout', 'pass'],
    ]);
    expect(rows(ran.stdout).every(([, , result]) => result === 'pass')).toBe(true);
    expect(ran.stdout).not.toContain('approval-missing');
  });
});
