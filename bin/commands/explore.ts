import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describePlan } from '../../explore/describe.js';
import { explore, type ExploreCounterexample } from '../../explore/explore.js';
import { regressionFileName, regressionFor } from '../../explore/regression.js';
import { writeFileAtomic } from '../../reports/results.js';
import { ZOO } from '../../scenarios/agents/zoo.js';
import { agentArgument, chooseAgent, resolveAgent } from '../agent-source.js';
import { configFile, loadConfig } from '../config.js';
import { knownScenarios } from '../suite.js';
import { loadScenarioFile } from '../../scenarios/load.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { exploreWorkers } from '../explore-workers.js';
import type { Io } from '../io.js';
import { checkOutputFolder } from '../output-folder.js';
import { UsageError } from '../usage-error.js';

export const EXPLORE_HELP = `Usage: faultline explore SCENARIO [options]

Searches the fault plans of one scenario for the smallest one that breaks an agent: draws
plans of any faults at any point the scenario can reach (calls, steps, the first write, crash
probes of each write, virtual times within the budget, planner proposals, approvals, operator
denials, delays and cancellations), runs each on the virtual clock, and checks every run:
no duplicate side effect, no policy violation, every transition legal, a terminal state or a
safe stop with its reason (never a hang), the expected outcome where the faults leave success
possible, no false claim of success, nothing confirmed redone after a crash.

On a failure it shrinks the plan to the smallest that still fails, prints it in words with the
seed and path that reproduce it and the command that replays it, and saves it as a regression
file that 'faultline run' includes from then on.

Arguments:
  SCENARIO             a scenario id, e.g. refunds/partial-refund (see faultline list)

Options:
  --agent NAME|PATH    the agent under test (default: reference; see the zoo below), a name
                       from the config's agents, or a module path (./my-agent.ts)
  --runs N             fault plans to try (default 100)
  --seed S             the search's seed (default: a fresh one, printed)
  --max-faults M       most faults in one plan (default 3)
  --path P             replay the counterexample at path P of the search under --seed
  --regressions DIR    where the counterexample is saved (default: regressions/)
  --scenarios FILE     also load scenarios from FILE (.ts/.js module or .json); repeatable
  --out DIR            where run stores would go (default: .faultline/); exploration keeps
                       them in memory
  --workers N          judge plans in N worker threads (default 1); the same plans, the
                       same counterexample and path, the same regression file as with one
  -h, --help           show this help

Agents: ${ZOO.map((a) => a.name).join(', ')}.

Exit codes: 0 no counterexample, 1 a counterexample was found (and saved), 2 bad arguments.`;

export async function exploreCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      agent: { type: 'string', default: 'reference' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      'max-faults': { type: 'string' },
      path: { type: 'string' },
      regressions: { type: 'string', default: 'regressions' },
      scenarios: { type: 'string', multiple: true },
      out: { type: 'string', default: '.faultline' },
      workers: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(EXPLORE_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      `expects one scenario id (got ${positionals.length === 0 ? 'none' : positionals.join(' ')})`,
    );
  const id = positionals[0] ?? '';
  const config = await loadConfig(undefined);
  const source = chooseAgent(values.agent, { file: configFile(), agents: config.agents });
  const agent = await resolveAgent(source);
  const runs = whole('--runs', values.runs, 1) ?? 100;
  const maxFaults = whole('--max-faults', values['max-faults'], 0) ?? 3;
  if (maxFaults > 20) throw new UsageError(`--max-faults must be at most 20 (got ${maxFaults})`);
  const workers = whole('--workers', values.workers, 1) ?? 1;
  if (workers > 64) throw new UsageError(`--workers must be at most 64 (got ${workers})`);
  const seed = seedOption(values.seed) ?? freshSeed();
  if (values.path !== undefined && !/^\d+(:\d+)*$/.test(values.path))
    throw new UsageError(
      `--path must be numbers separated by colons, as printed with a counterexample (got "${values.path}")`,
    );
  if (values.path !== undefined && values.seed === undefined)
    throw new UsageError('--path replays a search: give the --seed it was printed with');
  checkOutputFolder(values.out, '--out');
  checkOutputFolder(values.regressions, '--regressions', false);
  const files = values.scenarios ?? [];
  const scenario = await findScenario(id, files);

  const replaying = values.path !== undefined;
  io.out(
    replaying
      ? `replaying ${scenario.id} with ${agent.name}: seed ${seed}, path ${values.path ?? ''}`
      : `exploring ${scenario.id} with ${agent.name}: up to ${runs} fault plans of at most ${maxFaults} fault(s), seed ${seed}`,
  );
  // The first figures show at once (a search that ends in a blink still says how it went),
  // then at most twice a second.
  let lastShown = -Infinity;
  // A replay walks one path: nothing to share out.
  const judges =
    workers > 1 && !replaying
      ? exploreWorkers({
          agent: source,
          scenarioFiles: files,
          outDir: values.out,
          n: workers,
          // This thread judges too until a worker has loaded: a short search is over by then.
          here: agent,
        })
      : undefined;
  const result = await explore({
    scenario,
    agent,
    runs,
    seed,
    maxFaults,
    ...(values.path === undefined ? {} : { path: values.path }),
    ...(judges === undefined ? {} : { judges }),
    outDir: values.out,
    onProgress: (p) => {
      const now = p.elapsedMs;
      if (now - lastShown < 500) return;
      lastShown = now;
      const rate = (p.runs + p.shrinks) / (Math.max(now, 1) / 1_000);
      io.progress(
        p.phase === 'search'
          ? `[${p.runs}/${runs}] explored · ${rate.toFixed(1)} runs/s`
          : `counterexample after ${p.runs} run(s) · shrinking: ${p.shrinks} step(s) · ${rate.toFixed(1)} runs/s`,
      );
    },
  }).finally(() => judges?.close());
  io.progressDone();
  const seconds = (result.elapsedMs / 1_000).toFixed(1);
  if (result.kind === 'passed') {
    io.out(
      `no counterexample in ${result.runs} run(s) (${seconds} s, ${(result.runs / (result.elapsedMs / 1_000)).toFixed(1)} runs/s); seed ${result.seed}`,
    );
    return 0;
  }

  const regression = await regressionFor(scenario, result, values.out);
  const file = join(values.regressions, regressionFileName(result));
  writeFileAtomic(file, `${JSON.stringify(regression, null, 2)}\n`);
  io.out(report(result, { runs, files, seconds, file, agentFlag: agentArgument(source) }));
  return 1;
}

function report(
  found: ExploreCounterexample,
  context: {
    runs: number;
    files: readonly string[];
    seconds: string;
    file: string;
    agentFlag: string;
  },
): string {
  const scenarios = context.files.map((f) => ` --scenarios ${f}`).join('');
  const agent = context.agentFlag === 'reference' ? '' : ` --agent ${context.agentFlag}`;
  const faults = found.plan.faults.length;
  return [
    `counterexample after ${found.runs} run(s), shrunk in ${found.shrinks} step(s) to ${faults} fault(s) (${context.seconds} s):`,
    ...describePlan(found.plan).map((line) => `  ${line}`),
    ...found.trajectory.faults.fired.slice(0, 8).map((f) => `  fired at ${f.at} ms: ${f.detail}`),
    `the run: ${found.trajectory.outcome.state}${found.trajectory.outcome.stopReason ? ` (${found.trajectory.outcome.stopReason})` : ''} after ${found.trajectory.calls.length} call(s)`,
    `success ${found.success.required ? 'required' : 'not required'}: ${found.success.reason}`,
    'violated:',
    ...found.violations.map((v) => `  ${v.invariant}: ${v.message}`),
    `reproduce: seed ${found.seed}, path ${found.path} (world seed ${found.worldSeed})`,
    `replay:    npx faultline explore ${found.scenarioId}${agent} --seed ${found.seed} --path ${found.path} --max-faults ${found.maxFaults}${scenarios}`,
    `saved:     ${context.file}`,
    `run it:    npx faultline run ${found.scenarioId} --plan ${found.plan.id}${agent}${scenarios}`,
  ].join('\n');
}

async function findScenario(id: string, files: readonly string[]): Promise<Scenario> {
  const loaded: Scenario[] = knownScenarios([id]);
  for (const file of files) loaded.push(...(await loadScenarioFile(file)));
  const scenario = loaded.find((s) => s.id === id);
  if (!scenario)
    throw new UsageError(`no scenario "${id}" (known: ${loaded.map((s) => s.id).join(', ')})`);
  return scenario;
}

/** A whole-number option ≥ `min`, or undefined when absent. */
function whole(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`${name} must be a whole number ≥ ${min} (got "${value}")`);
  return Number(value);
}

/** fast-check seeds are 32-bit integers. */
function seedOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || n < -(2 ** 31) || n >= 2 ** 31)
    throw new UsageError(`--seed must be a 32-bit integer (got "${value}")`);
  return n;
}

/** A fresh seed for a search nobody asked to repeat; it is printed, so it can be. */
function freshSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
