import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exploreWorkers } from '../../bin/explore-workers.js';
import { faultPlanArbitrary } from '../../explore/arbitraries.js';
import { explore, judgePlan, type ExploreResult } from '../../explore/explore.js';
import { scenarioReach } from '../../explore/reach.js';
import type { FaultPlan } from '../../faults/catalog.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { faultlineInProcess, tempDir } from '../support/cli.js';

const dir = tempDir('explore-workers');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * What an exploration prints, minus the wall-clock figures, the progress lines (printed as time
 * passes, so each run shows others) and the folder it saved into.
 */
function timeless(stdout: string, regressions: string): string {
  return stdout
    .split('\n')
    .filter((line) => !/ · [\d.]+ runs\/s$/.test(line))
    .join('\n')
    .replace(/\([\d.]+ s(, [\d.]+ runs\/s)?\)/g, '(… s)')
    .replaceAll(regressions, 'REGRESSIONS');
}

let explored = 0;

/** `faultline explore` with `workers` threads; its output and the regression files it saved. */
async function exploreWith(
  workers: number,
  args: readonly string[],
): Promise<{ status: number | null; stdout: string; saved: Record<string, string> }> {
  const regressions = join(dir, `regressions-${String(++explored)}`);
  const ran = await faultlineInProcess([
    'explore',
    ...args,
    '--workers',
    String(workers),
    '--regressions',
    regressions,
    '--out',
    join(dir, 'out'),
  ]);
  const files = existsSync(regressions) ? readdirSync(regressions) : [];
  const saved = Object.fromEntries(
    files.map((f) => [f, readFileSync(join(regressions, f), 'utf8')]),
  );
  return { status: ran.status, stdout: timeless(ran.stdout, regressions), saved };
}

describe('faultline explore --workers', () => {
  it('finds the same counterexample, path and regression file with one worker or two', async () => {
    // Seed 10 breaks the mutant at the 56th plan of 60: the two workers judge plans past it.
    const args = [
      'refunds/partial-refund',
      '--agent',
      'no-reconcile',
      '--runs',
      '60',
      '--seed',
      '10',
    ];
    const one = await exploreWith(1, args);
    const two = await exploreWith(2, args);

    expect(one.status, one.stdout).toBe(1);
    expect(one.stdout).toMatch(/^counterexample after 56 run\(s\)/m);
    expect(one.stdout).toMatch(/^reproduce: seed 10, path \d+(:\d+)* \(world seed 7\)$/m);
    expect(Object.keys(one.saved)).toHaveLength(1);
    expect(two.status).toBe(1);
    expect(two.stdout).toBe(one.stdout);
    expect(two.saved).toEqual(one.saved);
  }, 60_000);

  it('searches the same plans to the same end when none breaks an invariant', async () => {
    const args = ['crm/update-contact', '--runs', '20', '--seed', '11'];
    const one = await exploreWith(1, args);
    const two = await exploreWith(2, args);

    expect(one.status, one.stdout).toBe(0);
    expect(one.stdout).toMatch(/^no counterexample in 20 run\(s\) \(… s\); seed 11$/m);
    expect(two).toEqual(one);
  }, 60_000);

  it('refuses a worker count that is not a whole number ≥ 1, naming the flag', async () => {
    const ran = await faultlineInProcess(['explore', 'crm/update-contact', '--workers', '0']);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(/--workers must be a whole number ≥ 1 \(got "0"\)/);
  });
});

describe('exploreWorkers', () => {
  // One pool of two threads for both tests (a thread costs a load of the harness, more than the
  // sixty plans judged here): the first judges while its threads load, the second once they
  // have. Given `here`, a pool judges in this thread only until a thread has loaded.
  const scenario = partialRefund;
  const agent = zooAgent('no-reconcile')!;
  let plans: FaultPlan[];
  let judges: ReturnType<typeof exploreWorkers>;
  beforeAll(async () => {
    plans = (await drawPlans(scenario, 4)).slice(0, 4);
    judges = exploreWorkers({
      agent: { kind: 'zoo', name: 'no-reconcile' },
      scenarioFiles: [],
      outDir: dir,
      n: 2,
      here: agent,
    });
  });
  afterAll(async () => {
    await judges.close();
  });

  it('judges in this thread while its threads load, with the verdicts they would give', async () => {
    const events: string[] = [];
    void judges.ready().then(() => events.push('ready'));
    const verdicts: (number | undefined)[] = [];
    await judges.judge(
      scenario,
      plans,
      { worldSeed: scenario.world.seed },
      (index, failing) => {
        events.push('judged');
        verdicts[index] = failing?.violations.length ?? 0;
      },
      () => false,
    );
    // A thread takes far longer to load the harness than this thread takes to judge a plan;
    // and a batch judged whole here is over without waiting for the threads to load.
    expect(events[0]).toBe('judged');
    expect(events).toEqual(['judged', 'judged', 'judged', 'judged']);
    const alone = await Promise.all(
      plans.map((plan) => judgePlan({ scenario, agent, outDir: dir }, plan)),
    );
    expect(verdicts).toEqual(alone.map((j) => j.violations.length));
  }, 60_000);

  it('has its threads, once loaded, find the same counterexample, path, runs and shrinks as this thread alone', async () => {
    // The command judges in its own thread while the threads load, and a short search may be
    // over by then: here the threads are waited for, so they judge every plan.
    const options = { scenario, agent, runs: 60, seed: 10, outDir: dir };
    await judges.ready();
    const judged = await explore({ ...options, judges });
    const alone = await explore(options);
    expect(alone.kind).toBe('counterexample');
    const strip = ({ elapsedMs: _e, ...rest }: ExploreResult) =>
      JSON.stringify(rest).replace(/"wallMs":[\d.e+-]+/g, '');
    expect(strip(judged)).toBe(strip(alone));
  }, 60_000);
});

/** The first `n` plans fast-check draws for `scenario` under seed 10. */
async function drawPlans(scenario: Scenario, n: number): Promise<FaultPlan[]> {
  const drawn: FaultPlan[] = [];
  const arbitrary = faultPlanArbitrary(scenarioReach(scenario), {
    maxFaults: 3,
    agent: { probes: false, planner: false },
  });
  await fc.check(
    fc.asyncProperty(arbitrary, (plan) => {
      drawn.push(plan);
      return Promise.resolve(true);
    }),
    { numRuns: n, seed: 10 },
  );
  return drawn;
}
