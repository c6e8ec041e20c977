import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FAULT_KINDS } from '../../faults/catalog.js';
import { formatDuration } from '../../reports/duration.js';
import { runPassed } from '../../reports/graded.js';
import { REPORTERS, reporter, UnknownReporterError } from '../../reports/reporters.js';
import { type RunResult, writeFileAtomic } from '../../reports/results.js';
import { AUTONOMY_MODES, type AutonomyMode } from '../../runtime/contract.js';
import { ZOO } from '../../scenarios/agents/zoo.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { openLiveWorld, type LiveTarget } from '../../scenarios/world/live-world.js';
import { chooseAgent, resolveAgent } from '../agent-source.js';
import { liveTargetFromFlags } from '../live-target.js';
import { CONFIG_FILE, configFile, loadConfig, MAX_TRIALS } from '../config.js';
import type { Io } from '../io.js';
import { MODEL_CASSETTE_HELP, withModelCassettes } from '../model-cassette-flags.js';
import { MODEL_OPTIONS, modelLine, modelSetupFromFlags } from '../model-options.js';
import { costEstimateLine, maxCostOf } from '../model-cost.js';
import { checkOutputFolder } from '../output-folder.js';
import { remadeRunsLine } from '../kept-runs.js';
import { runSuite } from '../run-suite.js';
import { UsageError } from '../usage-error.js';

export const RUN_HELP = `Usage: faultline run [scenario globs…] [options]

Runs scenarios through an agent (the reference runtime by default) on a virtual clock, grades
every run, stores each result the moment it finishes, and reports. With no globs, runs the
whole built-in suite.

Arguments:
  scenario globs       ids or globs, e.g. refunds/full-refund, 'refunds/*', refunds

Every scenario runs once without faults and once per fault plan it declares (see --faults).
Regression files (JSON: a scenario id, a seed and a fault plan) in the regressions folder run too.

With --replay DIR, the cases are instead the recorded sessions of DIR (faultline record's
folder: index.json and one cassette per session): the agent runs against each cassette served
as its tools, under the recorded run id, with no network, and the runs are recorded in mode
replay. Leaving the recorded path ends the run with a replay-divergence finding (step, expected
call, actual call). The outcome is judged where the recording carries its expected end (verdict
pass: the recorded path followed to its end, ending in the recorded state); otherwise it is
shown as not applicable.

Options:
  --agent NAME|PATH    the agent under test: a zoo agent (default: reference; see below), a
                       name from the config's agents, or a module (./my-agent.ts, .mts, .js,
                       .mjs) whose default export is an agent or a function returning one
  --replay DIR         replay the recorded sessions of DIR (see above); takes no scenario globs,
                       --mode, --faults, --plan, --seed, --scenarios or --regressions
  --mode MODE          run every scenario in this autonomy mode: ${AUTONOMY_MODES.join('|')}
                       (shadow and recommend runs must complete with no effect)
  --faults SPEC        all (default) | none | kinds, comma-separated (plans injecting any of them)
  --plan ID            run only fault plan ID of each scenario ("none" for the fault-free run)
  --trials K           run each scenario and plan K times with derived seeds (default 1,
                       at most ${MAX_TRIALS})
  --seed N             world seed of the first trial, 0 to 2^53 - 1 (default: each
                       scenario's own)
  --workers N          run in N worker threads (results identical to a serial run; default:
                       one per core but one, up to 4, for a suite of 300 runs or more,
                       else 1)
  --shard I/N          run only the I-th of N deterministic slices (combine with faultline merge)
  --reporter NAME      ${Object.keys(REPORTERS).join('|')}; repeatable (default: table);
                       files go to --out
  --out DIR            result set folder (default: .faultline/): results.jsonl, reports, stores
  --resume             keep the finished runs in --out and make only the missing ones
                       (refused when the set was made with other options)
  --scenarios FILE     also load scenarios from FILE (.ts/.js module or .json); repeatable
  --regressions DIR    regression files to include (default: regressions/, if it exists)
  --config FILE        configuration (default: faultline.config.ts, if it exists)
  --model PROVIDER:MODEL
                       the model of an agent that calls one (tool-loop, model-planner):
                       openai:…, anthropic:…, or a provider of the config's models.providers
                       (keys from the environment only: OPENAI_API_KEY, ANTHROPIC_API_KEY, or
                       the provider's apiKeyEnv)
  --prompt FILE        the agent's system prompt (default: its own, in prompts/)
  --temperature T      sampling temperature, 0 to 2
  --model-seed N       the seed sent to the provider (where it supports one)
${MODEL_CASSETTE_HELP}
  --max-cost USD       stop the suite once the model spend of its finished runs passes USD
                       (needs the model's models.prices; finished runs are kept for --resume)
  --server "CMD ARGS…" with --mode shadow: shadow a live MCP server faultline starts (MCP over
                       its stdio; it inherits the environment): reads go to it, every write is
                       held, never sent, and graded as a proposal
  --url URL            with --mode shadow: shadow a live Streamable HTTP MCP server instead
  --header 'K: V'      an HTTP header for --url (repeatable), e.g. 'Authorization: Bearer …';
                       never written anywhere
  -h, --help           show this help

Every run is graded on outcome, policy, integrity, recovery, tool use, efficiency, operational
fit and evidence; it passes when outcome, policy, integrity and recovery pass.

Agents: ${ZOO.map((a) => a.name).join(', ')}.

A run holds a lock on --out while it writes: a second writer there is refused (exit 2).

Exit codes: 0 every run passed, 1 one or more failed, 2 bad arguments or configuration.`;

export async function runCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      agent: { type: 'string' },
      replay: { type: 'string' },
      mode: { type: 'string' },
      faults: { type: 'string' },
      plan: { type: 'string' },
      trials: { type: 'string' },
      seed: { type: 'string' },
      workers: { type: 'string' },
      shard: { type: 'string' },
      reporter: { type: 'string', multiple: true },
      out: { type: 'string' },
      resume: { type: 'boolean', default: false },
      scenarios: { type: 'string', multiple: true },
      regressions: { type: 'string' },
      config: { type: 'string' },
      ...MODEL_OPTIONS,
      'max-cost': { type: 'string' },
      server: { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(RUN_HELP);
    return 0;
  }
  // The live server's flags checked first: they decide what else may be combined with them.
  const live = liveTargetFromFlags(values);
  const replay = values.replay;
  if (replay !== undefined) refuseWithReplay(values, positionals);
  if (replay !== undefined && live)
    throw new UsageError(
      '--replay cannot be combined with --server or --url: a replay never reaches a live server',
    );
  const loaded = await loadConfig(values.config);
  const config = loaded.run;
  // A value the config gave is blamed on the config's file and field, not on a flag.
  const file = configFile(values.config);
  const blame = (field: string, flag: unknown): string =>
    flag === undefined ? `config ${file ?? CONFIG_FILE}: run.${field}: ` : '';
  const agentSource = chooseAgent(
    values.agent ?? config.agent ?? 'reference',
    { file, agents: loaded.agents },
    blame('agent', values.agent).slice(0, -2) || '--agent',
  );
  // Loaded and checked now (a factory called once), before anything is written.
  const agent = await resolveAgent(agentSource);
  const chosenModel = modelSetupFromFlags(
    values,
    loaded,
    { name: agent.name, callsModel: (await agent.create()).exposes?.model === true },
    { configFile: file },
  );
  const maxCostUsd = maxCostOf(values['max-cost'], chosenModel);
  // A replay runs the recorded sessions as recorded: the library suite's settings do not apply.
  const mode = replay === undefined ? (values.mode ?? config.mode) : undefined;
  if (mode !== undefined && !(AUTONOMY_MODES as readonly string[]).includes(mode))
    throw new UsageError(`--mode must be one of ${AUTONOMY_MODES.join(', ')} (got "${mode}")`);
  if (live) checkLiveRun(values, mode);
  const faults = live || replay !== undefined ? 'none' : (values.faults ?? config.faults ?? 'all');
  if (faults !== 'all' && faults !== 'none') {
    const unknown = faults
      .split(',')
      .filter((k) => !(FAULT_KINDS as readonly string[]).includes(k.trim()));
    if (unknown.length > 0)
      throw new UsageError(
        `${blame('faults', values.faults) || '--faults: '}unknown fault kind ${unknown.map((k) => `"${k}"`).join(', ')} (all, none, or kinds: ${FAULT_KINDS.join(', ')})`,
      );
  }
  const trials = whole('--trials', values.trials, 1, MAX_TRIALS) ?? config.trials ?? 1;
  // A live run is one connection at a time, in this process (see checkLiveRun).
  const workers = live
    ? 1
    : (whole('--workers', values.workers, 1) ?? config.workers ?? ('auto' as const));
  const seed =
    replay === undefined
      ? (whole('--seed', values.seed, 0, Number.MAX_SAFE_INTEGER) ?? config.seed)
      : undefined;
  const reporters = values.reporter ?? config.reporters ?? ['table'];
  const chosen = reporters.map((name) => {
    try {
      return reporter(name);
    } catch (error) {
      if (error instanceof UnknownReporterError && values.reporter === undefined)
        throw new UsageError(`${blame('reporters', undefined)}${error.message}`, { cause: error });
      throw error;
    }
  });
  const out = values.out ?? config.out ?? '.faultline';
  checkOutputFolder(
    out,
    values.out === undefined && config.out !== undefined
      ? blame('out', undefined).slice(0, -2)
      : '--out',
  );
  // The default folder may be absent; one named on purpose must be there, or it is a typo.
  const regressions = replay === undefined ? (values.regressions ?? config.regressions) : '';
  if (replay === undefined && regressions !== undefined && !isFolder(regressions))
    throw new UsageError(
      `${blame('regressions', values.regressions) || '--regressions: '}${regressions}: no such folder (regression files are read from a folder; leave the option out to skip them)`,
    );
  // The cassette folders checked whole (versions, model) before anything is written.
  const model = withModelCassettes(chosenModel, {
    record: values['record-model'],
    replay: values['replay-model'],
  });

  // Reached and listed before anything is written: a wrong command or URL is one line, no set.
  if (live) await probeLive(live);

  const started = performance.now();
  let failing = 0;
  const progress = io.color || io.tty ? bar(io) : undefined;
  const suite = await runSuite(
    {
      globs: positionals,
      ...(replay === undefined ? {} : { replay: resolve(replay) }),
      agent: agent.name,
      agentSource,
      ...(mode === undefined ? {} : { mode: mode as AutonomyMode }),
      faults,
      ...(values.plan === undefined ? {} : { plan: values.plan }),
      trials,
      ...(seed === undefined ? {} : { seed }),
      scenarioFiles:
        replay === undefined ? [...(config.scenarios ?? []), ...(values.scenarios ?? [])] : [],
      regressions: regressions ?? 'regressions',
      ...(model === undefined ? {} : { model }),
      ...(live === undefined ? {} : { live, plan: 'none' }),
    },
    {
      out,
      workers,
      ...(values.shard === undefined ? {} : { shard: values.shard }),
      resume: values.resume,
      ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
      ...(model === undefined
        ? {}
        : {
            beforeRuns: (todo: number) => {
              io.out(modelLine(model));
              io.out(costEstimateLine(model, todo, out));
            },
          }),
      onResult: (result, done, total) => {
        if (!runPassed(result)) failing++;
        const line = `[${done}/${total}] ${runPassed(result) ? 'ok  ' : 'FAIL'} ${result.scenarioId} / ${result.faultPlanId}${result.trial > 0 ? ` #${result.trial}` : ''} → ${result.state} (${formatDuration(result.figures.virtualMs)} virtual)`;
        if (progress) progress(done, total, failing, performance.now() - started);
        else io.progress(line);
      },
    },
  );
  io.progressDone();
  if (suite.remade.length > 0) io.out(remadeRunsLine(suite.remade));
  if (suite.skipped > 0)
    io.out(`resumed: ${suite.skipped} finished run(s) kept, ${suite.ran} run now`);
  if (suite.discarded > 0)
    io.out(
      `replaced an unfinished set of ${suite.discarded} run(s) in ${out} (--resume would have kept them)`,
    );

  const { results } = suite;
  if (suite.stopped !== undefined) {
    io.out(suite.stopped);
    return 1;
  }
  const k = Math.max(1, trials);
  const trajectory = (r: RunResult): unknown => {
    try {
      return JSON.parse(readFileSync(join(out, r.trajectoryFile), 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  };
  for (const r of chosen) {
    const text = r.render(
      { results, k, trajectory, notApplicable: suite.notApplicable },
      { color: io.color },
    );
    if (r.name === 'table') io.out(text);
    else {
      writeFileAtomic(join(out, r.file), text);
      io.out(`${r.name} report: ${join(out, r.file)}`);
    }
  }
  // The table lists skipped plans; without it they still get a line.
  if (suite.notApplicable.length > 0 && !chosen.some((r) => r.name === 'table'))
    io.out(
      `skipped: ${suite.notApplicable.length} fault plan(s) cannot apply in ${mode ?? ''} mode (listed in the reports)`,
    );
  const failed = results.filter((r) => !runPassed(r)).length;
  const virtual = results.reduce((sum, r) => sum + r.figures.virtualMs, 0);
  io.out(
    `${formatDuration(virtual)} virtual in ${((performance.now() - started) / 1000).toFixed(2)} s · results in ${join(out, 'results.jsonl')}`,
  );
  return failed === 0 ? 0 : 1;
}

/**
 * What a live run may not be combined with. Live writes are `faultline record`'s job: `run`
 * shadows a live server and never lets a write through. Faults are not injected into a system
 * that is really there (plan `none` only), and one connection runs at a time, in this process.
 */
function checkLiveRun(
  values: { faults?: string | undefined; plan?: string | undefined; workers?: string | undefined },
  mode: string | undefined,
): void {
  if (mode !== 'shadow')
    throw new UsageError(
      `--server/--url run against a live server in shadow mode only: add --mode shadow (to let writes through to a live server, use faultline record)`,
    );
  if (values.faults !== undefined && values.faults !== 'none')
    throw new UsageError(
      `--faults ${values.faults}: a live run injects no faults (it runs the fault-free plan only); leave --faults out`,
    );
  if (values.plan !== undefined && values.plan !== 'none')
    throw new UsageError(
      `--plan ${values.plan}: a live run injects no faults (it runs the fault-free plan "none" only)`,
    );
  if (values.workers !== undefined && values.workers !== '1')
    throw new UsageError(
      `--workers ${values.workers}: a live run uses one connection to the live server at a time; leave --workers out`,
    );
}

/** Connects to the live server and lists its tools once, then lets go. */
async function probeLive(target: LiveTarget): Promise<void> {
  const world = await openLiveWorld({ target, clock: new VirtualClock(), mode: 'shadow' });
  await world.close();
}

/**
 * Refuses, in one line, what a replay cannot take: the recorded sessions are the cases, each
 * run as it was recorded, so nothing may select scenarios, plans, modes or seeds.
 */
function refuseWithReplay(values: Record<string, unknown>, positionals: readonly string[]): void {
  if (positionals.length > 0)
    throw new UsageError(
      `--replay takes no scenario globs (got ${positionals.join(' ')}): the recorded sessions of the folder are the cases`,
    );
  const why: Record<string, string> = {
    mode: 'a replay is recorded in mode replay, each session under its recorded contract',
    faults: 'a replay injects no fault plan: the cassette answers as recorded',
    plan: 'a replay injects no fault plan: the cassette answers as recorded',
    seed: 'each session replays on its recorded seed',
    scenarios: 'the recorded sessions are the cases',
    regressions: 'the recorded sessions are the cases',
  };
  for (const [flag, reason] of Object.entries(why))
    if (values[flag] !== undefined)
      throw new UsageError(`--replay cannot be combined with --${flag}: ${reason}`);
}

/** A whole-number option ≥ `min` (and ≤ `max`, when given), or undefined when absent. */
function whole(
  name: string,
  value: string | undefined,
  min: number,
  max?: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${name} must be a whole number ≥ ${min} (got "${value}")`);
  if (max !== undefined && Number(value) > max) throw new UsageError(tooLarge(name, value, max));
  return Number(value);
}

/** Why a number is too large, for the options that have a ceiling. */
function tooLarge(name: string, value: string, max: number): string {
  if (max === Number.MAX_SAFE_INTEGER)
    return `${name} must be at most ${max} (2^53 - 1): a larger number loses digits, and the replay command would name another seed (got "${value}")`;
  if (name === '--trials')
    return `${name} must be at most ${max}: every trial reruns every case, and the suite is planned before anything runs; for more evidence, run more sets with other --seed values (got "${value}")`;
  return `${name} must be at most ${max} (got "${value}")`;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A progress bar for terminals: runs done, failing so far, time left. */
function bar(io: Io): (done: number, total: number, failing: number, elapsedMs: number) => void {
  return (done, total, failing, elapsedMs) => {
    const width = 24;
    const filled = Math.round((done / Math.max(1, total)) * width);
    const left = done === 0 ? 0 : ((total - done) * elapsedMs) / done;
    io.progress(
      `${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${done}/${total} · ${failing} failing · ~${formatDuration(left)} left`,
    );
  };
}
