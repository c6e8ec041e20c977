import type { AgentUnderTest } from '../scenarios/agent.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_FAULTS, type FaultPlan } from '../faults/catalog.js';
import {
  CORE_DIMENSIONS,
  createContext,
  gradeRun,
  notJudged,
  type RunGrades,
} from '../graders/index.js';
import { gradedRun } from '../graders/metrics.js';
import type { ModelSetup } from '../models/model-setup.js';
import {
  RESULT_FORMAT,
  RESULT_VERSION,
  trajectoryFileFor,
  type RunResult,
} from '../reports/results.js';
import type { AutonomyMode } from '../runtime/contract.js';
import { checkChildMode } from '../scenarios/child/child-agent-host.js';
import { trialSeed, validateFaultPlan } from '../scenarios/engine.js';
import { BUILT_IN_SCENARIOS } from '../scenarios/library/index.js';
import { loadTasks, tauRetailScenarios } from '../scenarios/library/tau-retail/index.js';
import { loadScenarioFile, worldOf } from '../scenarios/load.js';
import { InvalidInputError } from '../runtime/errors.js';
import { WORLDS } from '../scenarios/library/worlds.js';
import {
  beyondReach,
  reachOf,
  stopKeptInMode,
  unreachableInMode,
  type KeptStop,
  type RunReach,
} from '../scenarios/mode-reach.js';
import { loadRegressions } from '../scenarios/regression.js';
import { runScenario, type ScenarioRunResult } from '../scenarios/runner.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { Trajectory } from '../scenarios/trajectory.js';
import { VirtualClock } from '../scenarios/virtual-clock.js';
import type { World } from '../scenarios/world/world.js';
import { openLiveWorld, type LiveTarget } from '../scenarios/world/live-world.js';
import {
  agentArgument,
  resolveAgent,
  type AgentSource,
  type ResolvedAgent,
} from './agent-source.js';
import { globToRegExp, matchesAny } from './glob.js';
import { liveWords } from './live-target.js';
import { replayCases } from './replay-cases.js';
import { modelWords } from './model-options.js';
import { UsageError } from './usage-error.js';

/** What selects a suite; the same options rebuild the same cases in every worker. */
export interface SuiteOptions {
  globs: readonly string[];
  /** The agent's name (a zoo name, unless `agentSource` says where the agent comes from). */
  agent: string;
  /** Where the agent comes from, as data every worker rebuilds it from (default: the zoo). */
  agentSource?: AgentSource;
  /** Overrides every scenario's autonomy mode. */
  mode?: AutonomyMode;
  /** `all`, `none`, or fault kinds separated by commas. */
  faults: string;
  /** Only this fault plan id ("none" for the fault-free run). */
  plan?: string;
  trials: number;
  seed?: number;
  scenarioFiles: readonly string[];
  regressions: string;
  /** The model every run's agent is given (`--model`), as data every worker rebuilds it from. */
  model?: ModelSetup;
  /**
   * A live MCP server every run's world is (`--server`, `--url`), in shadow mode: reads go to it,
   * writes are held as proposals. Its headers are never written anywhere.
   */
  live?: LiveTarget;
  /**
   * A recordings folder (absolute): its sessions are the cases, replayed from their cassettes
   * (`run --replay`); globs, mode, faults and plan are then unused.
   */
  replay?: string;
}

/** One run to make: a scenario under one fault plan, one trial. */
export interface SuiteCase {
  index: number;
  id: string;
  scenario: Scenario;
  faultPlan: FaultPlan;
  trial: number;
  seed: number;
  mode: string;
  /** Extra words of the replay command (`--plan`, `--seed`, …). */
  replay: string;
  /** The run id (default: from scenario, plan and seed); a replayed session's is the recorded one. */
  runId?: string;
  /** The store file's name when trials share a run id (see `TrialOptions.storeKey`). */
  storeKey?: string;
  /** The outcome cannot be judged for this case, and why (a recording with no expected end). */
  outcomeNotJudged?: string;
}

/** A fault plan left out of a suite because it cannot apply in the mode the suite runs in. */
export interface SkippedPlan {
  scenarioId: string;
  faultPlanId: string;
  mode: string;
  /** Why: each fault that can never fire in the mode, or each check the plan fails there. */
  reasons: string[];
}

/**
 * The τ-bench retail suites, built only when the globs can select them, as building one reads
 * the benchmark's store and replays every gold path: the test tasks (`tau-retail/*`) are part
 * of the default suite — no glob, a glob that can name them (`tau-retail/test-007`, `*\/*`),
 * unless a `!glob` leaves them all out; the 500 train tasks (`tau-retail-train/*`) only when a
 * glob names that folder.
 */
export function optionalSuites(globs: readonly string[]): Scenario[] {
  const included = globs.filter((g) => !g.startsWith('!'));
  // An id no glob could have been written for: only a glob naming every task of the folder
  // matches it, so `!tau-retail/*` drops the suite and `!tau-retail/test-007` does not.
  const allOf = (folder: string): string => `${folder}/\u0000`;
  const canName = (folder: string): boolean =>
    (included.length === 0 ||
      included.some((g) => globToRegExp(g.split('/')[0] ?? g).test(folder))) &&
    matchesAny(
      allOf(folder),
      globs.filter((g) => g.startsWith('!')),
    );
  const named = (folder: string): boolean =>
    included.some((g) => g === folder || g.startsWith(`${folder}/`));
  return [
    ...(canName('tau-retail') ? tauRetailScenarios('test') : []),
    ...(named('tau-retail-train') ? tauRetailScenarios('train') : []),
  ];
}

/** The suites built only when a glob reaches them (`optionalSuites`). */
const OPTIONAL_FOLDERS = [
  ['tau-retail', 'τ-bench retail test tasks'],
  ['tau-retail-train', 'τ-bench retail train tasks'],
] as const;

/** One suite built only when a glob reaches it, summarised: what `faultline list` shows of it. */
export interface OptionalSuiteSummary {
  /** The glob that selects all of it: `tau-retail/*`. */
  glob: string;
  description: string;
  tasks: number;
  /** The derived fault plans of its tasks, counted only for the default suite's tasks (null). */
  faultPlans: number | null;
  /** Whether a run with no glob includes it. */
  defaultSuite: boolean;
}

/**
 * The suites `optionalSuites` builds, one summary each. The test tasks are built (their plans
 * are what a default run runs); the 500 train tasks only counted, as building them takes
 * seconds that a listing should not spend.
 */
export function optionalSuiteSummaries(): OptionalSuiteSummary[] {
  const test = tauRetailScenarios('test');
  return OPTIONAL_FOLDERS.map(([folder, description]) => {
    const inDefault = folder === 'tau-retail';
    return {
      glob: `${folder}/*`,
      description,
      tasks: inDefault ? test.length : loadTasks('train').length,
      faultPlans: inDefault ? test.reduce((n, s) => n + s.faultPlans.length, 0) : null,
      defaultSuite: inDefault,
    };
  });
}

/** Ids for an error: each one, but a folder of more than ten as `folder/* (n)`. */
export function knownIds(ids: readonly string[]): string {
  const folders = new Map<string, string[]>();
  for (const id of ids) {
    const folder = id.split('/')[0] ?? id;
    const inIt = folders.get(folder);
    if (inIt === undefined) folders.set(folder, [id]);
    else inIt.push(id);
  }
  const listed = [...folders].flatMap(([folder, inIt]) =>
    inIt.length > 10 ? [`${folder}/* (${inIt.length})`] : inIt,
  );
  // The suites no glob reached are known too: the user may have meant one of them.
  for (const [folder, what] of OPTIONAL_FOLDERS)
    if (!folders.has(folder)) listed.push(`${folder}/* (${what})`);
  return listed.join(', ');
}

/** Every scenario `globs` can select from: the built-in library and the suites they reach. */
export function knownScenarios(globs: readonly string[]): Scenario[] {
  return [...BUILT_IN_SCENARIOS, ...optionalSuites(globs)];
}

/**
 * Every case of the suite, in a fixed order: scenario by scenario, the fault-free run then each
 * fault plan the `faults` filter keeps, each trial; then regression files. Deterministic, so
 * shards, workers and resumed runs all agree on what case `index` means.
 */
export async function suiteCases(options: SuiteOptions): Promise<SuiteCase[]> {
  return (await suiteSelection(options)).cases;
}

/**
 * The suite's cases and, under `mode`, the plans left out because they cannot apply in that
 * mode (a plan written for an approval that shadow mode never asks for). Every plan is checked
 * here, before the first case runs, so a suite in another mode runs to its end.
 */
export async function suiteSelection(
  options: SuiteOptions,
): Promise<{ cases: SuiteCase[]; skipped: SkippedPlan[] }> {
  const agent = await suiteAgent(options);
  if (options.replay !== undefined)
    return { cases: await replayCases({ ...options, replay: options.replay }, agent), skipped: [] };
  const agentWord = agentArgument(agent.source);
  const loaded = knownScenarios(options.globs);
  // Where each id came from: two scenarios with one id would make a set no command can read.
  const origin = new Map<string, string>(loaded.map((s) => [s.id, 'a built-in scenario']));
  for (const file of options.scenarioFiles) {
    for (const scenario of await loadScenarioFile(file)) {
      const first = origin.get(scenario.id);
      if (first !== undefined)
        throw new UsageError(
          `--scenarios ${file}: id "${scenario.id}" is already ${first}; give the scenario an id of its own`,
        );
      origin.set(scenario.id, `in ${file}`);
      loaded.push(scenario);
    }
  }
  const scenarios = loaded.filter((s) => matchesAny(s.id, options.globs));
  const regressions = (await loadRegressions(options.regressions, loaded)).filter((r) =>
    matchesAny(r.scenario.id, options.globs),
  );
  // A regression's case id is its scenario's and plan's: one the scenario has would be twice.
  const planIds = new Map(loaded.map((s) => [s.id, ['none', ...s.faultPlans.map((p) => p.id)]]));
  for (const r of regressions) {
    const taken = planIds.get(r.scenario.id) ?? [];
    if (taken.includes(r.faultPlan.id))
      throw new UsageError(
        `regression file ${r.file}: faultPlan.id "${r.faultPlan.id}" is already a fault plan of ${r.scenario.id} (or of another regression); give it an id of its own`,
      );
    planIds.set(r.scenario.id, [...taken, r.faultPlan.id]);
  }
  if (scenarios.length === 0 && regressions.length === 0) {
    throw new UsageError(
      `no scenario matches ${options.globs.join(', ')} (known: ${knownIds(loaded.map((s) => s.id))})`,
    );
  }
  const keep = faultFilter(options.faults);
  const { mode } = options;
  const planned: { scenario: Scenario; faultPlan: FaultPlan; fixedSeed?: number }[] = [
    ...scenarios.flatMap((scenario) =>
      [NO_FAULTS, ...scenario.faultPlans]
        .filter(keep)
        .map((faultPlan) => ({ scenario, faultPlan })),
    ),
    ...regressions.map((r) => ({
      scenario: r.scenario,
      faultPlan: r.faultPlan,
      fixedSeed: r.seed,
    })),
  ].filter((c) => options.plan === undefined || c.faultPlan.id === options.plan);
  const skipped: SkippedPlan[] = [];
  // One world per scenario: booting one costs milliseconds, and plans only read its tools.
  const worlds = new Map<Scenario, World<unknown> | undefined>();
  const worldOf = (scenario: Scenario): World<unknown> | undefined => {
    if (!worlds.has(scenario)) worlds.set(scenario, bootWorld(scenario));
    return worlds.get(scenario);
  };
  const applicable = planned.filter((p) => {
    if (mode === undefined || mode === p.scenario.contract.autonomy) return true;
    const world = worldOf(p.scenario);
    // An unknown world is refused with the scenario's other checks when the case runs.
    if (!world) return true;
    const reasons = notApplicable(p.scenario, p.faultPlan, mode, world);
    if (reasons.length === 0) return true;
    skipped.push({ scenarioId: p.scenario.id, faultPlanId: p.faultPlan.id, mode, reasons });
    return false;
  });
  // The fault-free runs in the mode, by scenario and seed (shadow and recommend only).
  let reaches = new Map<string, RunReach>();
  if (mode !== undefined && proposing(mode)) {
    const reached = await reachedInMode(applicable, mode, options);
    reaches = reached.reaches;
    for (const p of [...applicable]) {
      const reasons = reached.skipped.get(p);
      if (reasons === undefined) continue;
      skipped.push({ scenarioId: p.scenario.id, faultPlanId: p.faultPlan.id, mode, reasons });
      applicable.splice(applicable.indexOf(p), 1);
    }
  }
  if (applicable.length === 0 && skipped.length === 0) {
    throw new UsageError(
      options.plan !== undefined
        ? `no fault plan "${options.plan}" in the matching scenarios`
        : `no fault plan of the matching scenarios injects ${options.faults}`,
    );
  }
  const cases: SuiteCase[] = [];
  for (const p of applicable) {
    // The plan as the mode runs it: its expected ending rewritten with the scenario's.
    for (let trial = 0; trial < options.trials; trial++) {
      const base = p.fixedSeed ?? options.seed ?? p.scenario.world.seed;
      // Trial 0 keeps the scenario's (or the given) seed; further trials derive their own.
      const seed = trial === 0 ? base : trialSeed(base, p.scenario.id, p.faultPlan.id, trial);
      const reach = reaches.get(`${p.scenario.id}#${seed}`);
      const faultPlan = mode ? planInMode(p.scenario, p.faultPlan, mode, reach) : p.faultPlan;
      const scenario = mode ? inMode(p.scenario, mode) : p.scenario;
      const runMode = scenario.contract.autonomy;
      const words = [
        `--plan ${p.faultPlan.id}`,
        `--seed ${seed}`,
        ...(agentWord === 'reference' ? [] : [`--agent ${agentWord}`]),
        ...(options.mode ? [`--mode ${options.mode}`] : []),
        ...modelWords(options.model),
        ...(options.live ? liveWords(options.live) : []),
      ];
      cases.push({
        index: cases.length,
        id: `${agent.name}|${runMode}|${p.scenario.id}|${p.faultPlan.id}|${trial}`,
        scenario,
        faultPlan,
        trial,
        seed,
        mode: runMode,
        replay: `npx faultline run ${p.scenario.id} ${words.join(' ')}`,
      });
    }
  }
  return { cases, skipped };
}

/**
 * Refuses, before anything is written, a case that could only fail for a reason of its input:
 * a fault plan that cannot apply to its scenario as run (in `--mode`, with this agent). The
 * engine checks the same when a case starts, which is too late: earlier runs would be
 * stored and the suite stopped halfway. Resolves with the agent instance it made to check them,
 * for a caller that needs to know what the agent is (a resume's store check).
 */
export async function checkCases(
  cases: readonly SuiteCase[],
  chosen: string | ResolvedAgent,
  model?: ModelSetup,
): Promise<AgentUnderTest> {
  const agent = await (await agentFrom(chosen)).create();
  const worlds = new Map<string, World<unknown>>();
  for (const c of cases) {
    if (c.trial > 0) continue;
    const world = worlds.get(c.scenario.id) ?? worldOf(c.scenario);
    worlds.set(c.scenario.id, world);
    validateFaultPlan(c.scenario, c.faultPlan, world);
    if (c.faultPlan.faults.some((f) => f.kind === 'crash' && f.mode === 'child'))
      checkChildMode(c.faultPlan, agent, { model: model !== undefined });
  }
  return agent;
}

/** `all` keeps everything, `none` the fault-free runs, a list of kinds the plans injecting any. */
function faultFilter(spec: string): (plan: FaultPlan) => boolean {
  if (spec === 'all') return () => true;
  if (spec === 'none') return (plan) => plan.faults.length === 0;
  const kinds = new Set(spec.split(',').map((k) => k.trim()));
  return (plan) => plan.faults.some((f) => kinds.has(f.kind));
}

/** In shadow and recommend mode nothing may be executed: a run must complete with no effect. */
const UNCHANGED = {
  state: 'completed' as const,
  world: { path: 'effects.length', op: 'eq' as const, value: 0 },
};
const proposing = (mode: AutonomyMode): boolean => mode === 'shadow' || mode === 'recommend';

/**
 * The scenario run in another autonomy mode. In shadow and recommend mode nothing may be
 * executed, so whatever the scenario expected, the run must complete with no effect.
 */
function inMode(scenario: Scenario, mode: AutonomyMode): Scenario {
  const moved: Scenario = { ...scenario, contract: { ...scenario.contract, autonomy: mode } };
  if (!proposing(mode)) return moved;
  return {
    ...moved,
    expected: endingInMode(scenario, NO_FAULTS, undefined),
    faultPlans: moved.faultPlans.map((p) => planInMode(scenario, p, mode, undefined)),
  };
}

/**
 * A fault plan run in another mode: in shadow and recommend mode it expects no effect either,
 * and completes unless its stop rests on nothing the mode leaves out (see `stopKeptInMode`).
 * `reach` is the fault-free run in the mode on the case's seed, when known.
 */
function planInMode(
  scenario: Scenario,
  plan: FaultPlan,
  mode: AutonomyMode,
  reach: RunReach | undefined,
): FaultPlan {
  return proposing(mode) && plan.faults.length > 0
    ? { ...plan, expected: endingInMode(scenario, plan, reach) }
    : plan;
}

/** No effect, and the stop the mode keeps (a model-spend cap reached) or completion. */
function endingInMode(
  scenario: Scenario,
  plan: FaultPlan,
  reach: RunReach | undefined,
): typeof UNCHANGED | (KeptStop & { world: typeof UNCHANGED.world }) {
  const stop = stopKeptInMode(scenario, plan, reach);
  return stop ? { ...stop, world: UNCHANGED.world } : UNCHANGED;
}

/**
 * Why a plan cannot apply when its scenario runs in `mode` (empty: it can). A plan the scenario
 * runs well in its own mode but that fails a check in `mode` (an approval the mode never asks
 * for), or whose faults can never fire there, is left out; a plan that fails in its own mode
 * too is refused, since the scenario itself is wrong.
 */
function notApplicable(
  scenario: Scenario,
  plan: FaultPlan,
  mode: AutonomyMode,
  world: World<unknown>,
): string[] {
  const moved = inMode(scenario, mode);
  try {
    validateFaultPlan(moved, plan, world);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    validateFaultPlan(scenario, plan, world);
    return error.data.issues;
  }
  return unreachableInMode(moved, plan, world);
}

/** The seed of trial `trial` of a plan: the given (or scenario's) seed, then derived ones. */
function seedOf(
  p: { scenario: Scenario; faultPlan: FaultPlan; fixedSeed?: number },
  options: SuiteOptions,
  trial: number,
): number {
  const base = p.fixedSeed ?? options.seed ?? p.scenario.world.seed;
  return trial === 0 ? base : trialSeed(base, p.scenario.id, p.faultPlan.id, trial);
}

/**
 * The plans whose faults the reference never reaches in `mode`, with why: a fault at step 3 of
 * a run that in shadow mode makes two calls. Each scenario is run once fault-free in the mode
 * with the reference, on the plan's seed (in process, in a scratch folder: milliseconds), and a
 * plan is left out only when every fault lies beyond that run under every trial's seed. A fault
 * the fault-free run reaches stays required to fire.
 */
async function reachedInMode(
  planned: readonly { scenario: Scenario; faultPlan: FaultPlan; fixedSeed?: number }[],
  mode: AutonomyMode,
  options: SuiteOptions,
): Promise<{ skipped: Map<(typeof planned)[number], string[]>; reaches: Map<string, RunReach> }> {
  const out = new Map<(typeof planned)[number], string[]>();
  const reaches = new Map<string, RunReach>();
  const withFaults = planned.filter((p) => p.faultPlan.faults.length > 0);
  if (withFaults.length === 0) return { skipped: out, reaches };
  const scratch = await mkdtemp(join(tmpdir(), 'faultline-reach-'));
  try {
    const reachAt = async (scenario: Scenario, seed: number): Promise<RunReach> => {
      const key = `${scenario.id}#${seed}`;
      const known = reaches.get(key);
      if (known) return known;
      const run = await runScenario(inMode(scenario, mode), { outDir: scratch, seed });
      const reach = reachOf(run.trajectory);
      reaches.set(key, reach);
      return reach;
    };
    for (const p of withFaults) {
      // An unknown world is refused with the scenario's other checks, before the first case.
      if (!WORLDS[p.scenario.world.name]) continue;
      let reasons: string[] = [];
      // Trial 0 first: most plans are reached there, and further trials are not run for them.
      for (let trial = 0; trial < options.trials; trial++) {
        const here = beyondReach(
          p.faultPlan,
          await reachAt(p.scenario, seedOf(p, options, trial)),
          mode,
        );
        if (here.length === 0) {
          reasons = [];
          // Where a lost permission stops the run, each trial's ending rests on its own reach.
          if ((p.faultPlan.expected ?? p.scenario.expected).stopReason === 'permission-lost')
            continue;
          break;
        }
        if (trial === 0) reasons = here;
      }
      if (reasons.length > 0) out.set(p, reasons);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return { skipped: out, reaches };
}

/** The scenario's world, booted on its own seed, to check plans against (none if unknown). */
function bootWorld(scenario: Scenario): World<unknown> | undefined {
  return WORLDS[scenario.world.name]?.create({
    ...scenario.world.options,
    seed: scenario.world.seed,
    clock: new VirtualClock(),
  });
}

/** The cases of shard `i` of `n` (1-based): every n-th case, so shards balance. */
export function shardOf<T extends { index: number }>(cases: readonly T[], shard?: string): T[] {
  if (shard === undefined) return [...cases];
  const m = /^(\d+)\/(\d+)$/.exec(shard);
  const i = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || n < 1 || i < 1 || i > n)
    throw new UsageError(`--shard must be I/N with 1 ≤ I ≤ N (got "${shard}")`);
  return cases.filter((c) => c.index % n === i - 1);
}

/** The suite's agent, loaded and checked (once per process). */
export function suiteAgent(options: SuiteOptions): Promise<ResolvedAgent> {
  return resolveAgent(options.agentSource ?? { kind: 'zoo', name: options.agent });
}

/** A zoo agent by name, or an agent already resolved. */
function agentFrom(chosen: string | ResolvedAgent): Promise<ResolvedAgent> {
  return typeof chosen === 'string'
    ? resolveAgent({ kind: 'zoo', name: chosen })
    : Promise.resolve(chosen);
}

/** Runs one case and grades it: the record and the trajectory to store. */
export async function runCase(
  c: SuiteCase,
  chosen: string | ResolvedAgent,
  outDir: string,
  model?: ModelSetup,
  live?: LiveTarget,
): Promise<{ result: RunResult; trajectory: Trajectory }> {
  const agent = await agentFrom(chosen);
  const run = await runScenario(c.scenario, {
    // A live server in shadow mode in place of the scenario's world (the engine closes it).
    ...(live === undefined
      ? {}
      : {
          world: ({ clock }) => openLiveWorld({ target: live, clock, mode: 'shadow' }),
        }),
    outDir,
    agent: () => agent.create(),
    ...(agent.module === undefined ? {} : { agentModule: agent.module }),
    faultPlan: c.faultPlan,
    seed: c.seed,
    trial: c.trial,
    ...(model === undefined ? {} : { model }),
    ...(c.runId === undefined ? {} : { runId: c.runId }),
    ...(c.storeKey === undefined ? {} : { storeKey: c.storeKey }),
  });
  return caseResult(c, agent, run, model);
}

/**
 * The graded record of one finished run of a case, and its trajectory: what `run` stores for
 * each case and `serve` for its session.
 */
export function caseResult(
  c: SuiteCase,
  agent: { readonly name: string; readonly version: string },
  run: Pick<ScenarioRunResult, 'trajectory' | 'mismatches' | 'writesConfirmed' | 'effects'>,
  model?: Pick<ModelSetup, 'recordDir' | 'replayDir'>,
): { result: RunResult; trajectory: Trajectory } {
  const { trajectory } = run;
  // One grading context for both: built once, it is a good part of grading the run.
  const ctx = createContext(c.scenario, trajectory);
  const grades = judgedGrades(c, gradeRun(c.scenario, trajectory, ctx));
  const summary = gradedRun(c.scenario, trajectory, grades, ctx);
  const result: RunResult = {
    format: RESULT_FORMAT,
    version: RESULT_VERSION,
    id: c.id,
    index: c.index,
    agent: agent.name,
    agentVersion: agent.version,
    ...(trajectory.model ? { model: trajectory.model } : {}),
    ...modelCassettes(model),
    contractVersion: c.scenario.contract.version,
    policyVersion: reportedPolicyVersion(trajectory.agentRecords),
    mode: c.mode,
    scenarioId: c.scenario.id,
    title: c.scenario.title,
    world: c.scenario.world.name,
    workflowClass: c.scenario.workflowClass,
    tier: c.scenario.tier,
    faultPlanId: c.faultPlan.id,
    faultKinds: [...new Set(c.faultPlan.faults.map((f) => f.kind))],
    faultsFired: [...new Set(trajectory.faults.fired.map((f) => f.kind))],
    ...(trajectory.faults.notApplicable
      ? { faultsNotApplicable: trajectory.faults.notApplicable }
      : {}),
    trial: c.trial,
    seed: c.seed,
    state: trajectory.outcome.state,
    stopReason: trajectory.outcome.stopReason,
    detail: trajectory.outcome.detail,
    pass: grades.pass,
    grades: structuredClone(grades.grades) as unknown as RunResult['grades'],
    // An outcome not judged has no expected ending to differ from.
    mismatches: c.outcomeNotJudged === undefined ? run.mismatches : [],
    figures: {
      virtualMs: trajectory.times.virtualMs,
      wallMs: trajectory.times.wallMs,
      calls: summary.calls,
      okCalls: summary.okCalls,
      writesConfirmed: run.writesConfirmed,
      effects: run.effects,
      retries: summary.retries,
      crashes: summary.crashes,
      evidenceRequired: summary.evidenceRequired,
      evidenceLinked: summary.evidenceLinked,
      ...modelFigures(trajectory),
    },
    interventions: [...summary.interventions],
    replay: c.replay,
    trajectoryFile: trajectoryFileFor(c.id),
  };
  return { result, trajectory };
}

/** The run's grades with the outcome shown as not applicable where the case cannot judge it. */
function judgedGrades(c: SuiteCase, graded: RunGrades): RunGrades {
  if (c.outcomeNotJudged === undefined) return graded;
  // A divergence stays in sight (show names it), as a note: leaving a recording whose end is
  // not known to be right, or known to be wrong, is no failure.
  const divergence = graded.grades.outcome.findings.filter((f) => f.code === 'replay-divergence');
  const outcome = { ...notJudged('outcome', c.outcomeNotJudged), findings: divergence };
  const grades = { ...graded.grades, outcome };
  return { grades, pass: CORE_DIMENSIONS.every((d) => grades[d].pass) };
}

/** Where the run's model replies were recorded or replayed from; replay wins (the run made no live call). */
function modelCassettes(
  model: Pick<ModelSetup, 'recordDir' | 'replayDir'> | undefined,
): Pick<RunResult, 'modelCassettes'> {
  if (model?.replayDir !== undefined)
    return { modelCassettes: { dir: model.replayDir, mode: 'replay' } };
  if (model?.recordDir !== undefined)
    return { modelCassettes: { dir: model.recordDir, mode: 'record' } };
  return {};
}

/**
 * The policy gate's version the agent's own records report (the reference runtime stores it with
 * its run); null when they report none. Records are the agent's, of any shape: read defensively.
 */
function reportedPolicyVersion(records: unknown): string | null {
  if (records === null || typeof records !== 'object' || !('versions' in records)) return null;
  const { versions } = records;
  if (versions === null || typeof versions !== 'object' || !('policy' in versions)) return null;
  return typeof versions.policy === 'string' ? versions.policy : null;
}

/** A run's model usage, summed over its calls (all zero without a model). */
export function modelFigures(trajectory: Trajectory): {
  inputTokens: number;
  outputTokens: number;
  modelCalls: number;
  costUsd: number;
  modelLatencyMs: number;
} {
  const calls = trajectory.modelCalls ?? [];
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  let modelLatencyMs = 0;
  for (const call of calls) {
    inputTokens += call.usage.inputTokens;
    outputTokens += call.usage.outputTokens;
    costUsd += call.costUsd;
    modelLatencyMs += call.latencyMs;
  }
  return { inputTokens, outputTokens, modelCalls: calls.length, costUsd, modelLatencyMs };
}
