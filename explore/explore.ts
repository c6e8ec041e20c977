import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FaultPlan } from '../faults/catalog.js';
import { createContext } from '../graders/context.js';
import { gradeOutcome } from '../graders/outcome.js';
import { canonicalJson } from '../runtime/canonical-json.js';
import type { AgentUnderTest } from '../scenarios/agent.js';
import type { StoreKind } from '../scenarios/agents/reference.js';
import { ReferenceAgent } from '../scenarios/agents/reference.js';
import { runScenario } from '../scenarios/runner.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { Trajectory } from '../scenarios/trajectory.js';
import type { AgentReach } from '../faults/applicability.js';
import { faultPlanArbitrary } from './arbitraries.js';
import {
  BUILT_IN_INVARIANTS,
  checkInvariants,
  exploredRun,
  type Invariant,
  type Violation,
} from './invariants.js';
import { scenarioReach, type ScenarioReach } from './reach.js';
import { successRequired, type SuccessVerdict } from './success.js';

/**
 * An agent to explore, as the zoo lists them: a name and a factory. `store: 'memory'` asks
 * agents that keep a store to keep it in memory (the reference runtime's do); others ignore it.
 */
export interface ExploreAgent {
  readonly name: string;
  create(options?: { store?: StoreKind }): AgentUnderTest | Promise<AgentUnderTest>;
  /** The absolute path of the agent's module, when it comes from one (see TrialOptions). */
  readonly module?: string;
}

export interface ExploreOptions {
  scenario: Scenario;
  agent: ExploreAgent;
  /** Fault plans to try before giving up on finding a counterexample (default 100). */
  runs?: number;
  /** fast-check's seed: the same seed explores the same plans in the same order. */
  seed?: number;
  /** Replays the counterexample at this path of the search under `seed` (printed with every counterexample). */
  path?: string;
  /** Most faults in one plan (default 3). */
  maxFaults?: number;
  /** What every run is checked against (default {@link BUILT_IN_INVARIANTS}). */
  invariants?: readonly Invariant[];
  /** The world's seed in every run (default the scenario's own, as `faultline run` uses). */
  worldSeed?: number;
  /**
   * When the plan alone does not prove success possible, run the reference runtime under the
   * same plan and seed as a witness: if it reaches the expected outcome, so must the agent.
   * Default: on, except when the agent explored is the reference itself.
   */
  witness?: boolean;
  /**
   * Where store paths point; agents told to keep stores in memory never write there. Default: a
   * fresh folder of this call's own under the system's temporary folder, removed when the call
   * ends (nothing in the result points into it: a counterexample is reproduced from its seed and
   * path, and its trajectory is data). A folder given here is left as it is.
   */
  outDir?: string;
  /** Called after every run, searching or shrinking. */
  onProgress?: (progress: ExploreProgress) => void;
  /**
   * Judges the search's plans elsewhere, several at once (`faultline explore --workers N`
   * hands them to worker threads). The search finds the same plans, the same counterexample
   * and the same path as without: the plans are drawn here from the seed as fast-check would
   * draw them, judged in parallel up to the first that fails, and fast-check then walks the
   * same sequence against those verdicts and shrinks here, one run after another.
   * Judges judge with the built-in invariants, so `invariants` must be left out.
   */
  judges?: PlanJudges;
}

/**
 * Judges many plans of one scenario at once, each exactly as {@link judgePlan} would with the
 * built-in invariants. Plans are started in the order given; `stop` is asked before each
 * starts, and once it says so the plans in hand are finished and no other starts.
 * `onJudged` hears every verdict: nothing for a plan that passed, the judgement for one that
 * broke an invariant.
 */
export interface PlanJudges {
  judge(
    scenario: Scenario,
    plans: readonly FaultPlan[],
    options: { worldSeed: number; witness?: boolean },
    onJudged: (index: number, failing: JudgedPlan | undefined) => void,
    stop: () => boolean,
  ): Promise<void>;
}

export interface ExploreProgress {
  readonly phase: 'search' | 'shrink';
  /** Runs made while searching (before the first counterexample). */
  readonly runs: number;
  /** Runs made while shrinking a counterexample. */
  readonly shrinks: number;
  readonly elapsedMs: number;
}

interface ExploreCommon {
  readonly scenarioId: string;
  readonly agent: string;
  readonly seed: number;
  readonly worldSeed: number;
  readonly maxFaults: number;
  /** Runs made while searching, and how long the whole exploration took (wall time). */
  readonly runs: number;
  readonly elapsedMs: number;
}

/** No plan broke an invariant. */
export interface ExplorePassed extends ExploreCommon {
  readonly kind: 'passed';
}

/** The smallest plan found that breaks an invariant, and how to get it back. */
export interface ExploreCounterexample extends ExploreCommon {
  readonly kind: 'counterexample';
  readonly plan: FaultPlan;
  /** fast-check's path to the shrunk counterexample: replay with `seed` and this path. */
  readonly path: string;
  readonly shrinks: number;
  readonly violations: readonly Violation[];
  readonly success: SuccessVerdict;
  readonly trajectory: Trajectory;
}

export type ExploreResult = ExplorePassed | ExploreCounterexample;

/** One plan run and checked: what happened, whether success was required, what broke. */
export interface JudgedPlan {
  readonly plan: FaultPlan;
  readonly violations: readonly Violation[];
  readonly success: SuccessVerdict;
  readonly trajectory: Trajectory;
}

/** Thrown inside the property when the harness itself failed, so it is not taken for a counterexample. */
class HarnessFailure extends Error {
  override readonly name = 'HarnessFailure';
}

/**
 * Runs one plan and checks it: the agent under the plan, the success verdict (from the plan, or
 * from a reference witness), then every invariant. Without `outDir`, in a fresh folder of its
 * own, removed when the call ends (see {@link ExploreOptions.outDir}).
 */
export async function judgePlan(
  options: Pick<ExploreOptions, 'scenario' | 'agent' | 'invariants' | 'worldSeed' | 'witness'> & {
    reach?: ScenarioReach;
    outDir?: string;
  },
  plan: FaultPlan,
): Promise<JudgedPlan> {
  return inOutDir(options.outDir, (outDir) => judgePlanIn({ ...options, outDir }, plan));
}

async function judgePlanIn(
  options: Pick<ExploreOptions, 'scenario' | 'agent' | 'invariants' | 'worldSeed' | 'witness'> & {
    reach?: ScenarioReach;
    outDir: string;
  },
  plan: FaultPlan,
): Promise<JudgedPlan> {
  const { scenario, agent, outDir } = options;
  const reach = options.reach ?? scenarioReach(scenario);
  const seed = options.worldSeed ?? scenario.world.seed;
  const run = await runScenario(scenario, {
    outDir,
    agent: () => agent.create({ store: 'memory' }),
    ...(agent.module === undefined ? {} : { agentModule: agent.module }),
    faultPlan: plan,
    seed,
  });
  let success = successRequired(reach, plan);
  const witness = options.witness ?? agent.name !== 'reference';
  if (!success.required && witness && !outcomeHolds(scenario, run.trajectory)) {
    const reference = await runScenario(scenario, {
      outDir,
      agent: () => new ReferenceAgent('reference', {}, { store: 'memory' }),
      faultPlan: plan,
      seed,
    });
    if (
      outcomeHolds(scenario, reference.trajectory) &&
      sameLandings(run.trajectory, reference.trajectory)
    ) {
      success = {
        required: true,
        by: 'witness',
        reason: `${success.reason}, yet the reference runtime, meeting the same faults at the same points, reached the expected outcome`,
      };
    }
  }
  const explored = exploredRun(scenario, plan, run.trajectory, success);
  return {
    plan,
    violations: checkInvariants(explored, options.invariants ?? BUILT_IN_INVARIANTS),
    success,
    trajectory: run.trajectory,
  };
}

/**
 * Where each fault that fired landed, as far as it can be compared between two agents: on a
 * call (its tool, count and arguments) or at a crash, with the writes the run had sent before
 * it. A plan's triggers are relative to the agent's own steps ("the 3rd call"), so the same
 * plan can hit two agents at different points; a witness only speaks for faults that hit the
 * agent where they hit the reference. Faults landing at a time, a proposal or an approval
 * have no such point: undefined.
 */
function landings(t: Trajectory): string[] | undefined {
  const writes = new Set(t.tools.filter((tool) => tool.kind === 'write').map((tool) => tool.name));
  const sent = (calls: Trajectory['calls']) =>
    calls.filter((c) => writes.has(c.tool)).map((c) => [c.tool, c.args, c.outcome.type]);
  const out: string[] = [];
  let crashes = 0;
  for (const f of t.faults.fired) {
    let where: unknown;
    if (f.callId !== null) {
      const at = t.calls.findIndex((c) => c.callId === f.callId);
      const call = t.calls[at];
      if (!call) return undefined;
      where = {
        tool: call.tool,
        nth: call.toolCall,
        args: call.args,
        after: sent(t.calls.slice(0, at)),
      };
    } else if (f.kind === 'crash') {
      const k = crashes++;
      where = { detail: f.detail, after: sent(t.calls.filter((c) => c.incarnation <= k)) };
    } else return undefined;
    out.push(canonicalJson({ index: f.index, kind: f.kind, where }));
  }
  return out;
}

function sameLandings(a: Trajectory, b: Trajectory): boolean {
  const x = landings(a);
  const y = landings(b);
  return x !== undefined && y !== undefined && canonicalJson(x) === canonicalJson(y);
}

function outcomeHolds(scenario: Scenario, trajectory: Trajectory): boolean {
  return gradeOutcome(createContext(scenario, trajectory)).pass;
}

/**
 * Calls `work` in `outDir`, or else in a fresh folder of its own, removed when it ends: a fixed
 * shared folder stayed behind, and two explores at once wrote their store paths into it.
 */
async function inOutDir<T>(
  outDir: string | undefined,
  work: (outDir: string) => Promise<T>,
): Promise<T> {
  if (outDir !== undefined) return work(outDir);
  const scratch = mkdtempSync(join(tmpdir(), 'faultline-explore-'));
  try {
    return await work(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Searches the fault plans of a scenario for one that makes the agent break an invariant:
 * fast-check draws plans (any faults at any trigger the scenario can reach, up to `maxFaults`),
 * each is run on the virtual clock with the agent's store in memory and checked against every
 * invariant; the first failure is shrunk to the smallest plan that still fails. Returns the
 * counterexample with the seed and path that reproduce it, or `passed`.
 *
 * @example
 * ```ts
 * const result = await explore({ scenario: partialRefund, agent: zooAgent('no-reconcile')!, runs: 200, seed: 42 });
 * if (result.kind === 'counterexample') console.log(describePlan(result.plan), result.path);
 * ```
 */
export async function explore(options: ExploreOptions): Promise<ExploreResult> {
  const started = performance.now();
  return inOutDir(options.outDir, (outDir) => exploreIn({ ...options, outDir }, started));
}

async function exploreIn(
  options: ExploreOptions & { outDir: string },
  started: number,
): Promise<ExploreResult> {
  const { scenario, agent } = options;
  const maxFaults = options.maxFaults ?? 3;
  const runs = options.runs ?? 100;
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x1_0000_0000)) | 0;
  const worldSeed = options.worldSeed ?? scenario.world.seed;
  const reach = scenarioReach(scenario);
  const judgeOptions = { ...options, reach, worldSeed };

  // Only faults that can reach the agent: a plan of faults it never meets proves nothing.
  const plans = faultPlanArbitrary(reach, { maxFaults, agent: await reachOfAgent(agent) });
  const checkOptions = {
    numRuns: runs,
    seed,
    ...(options.path === undefined ? {} : { path: options.path }),
  };
  // Verdicts judged ahead, in parallel, by the search's position: the property answers from
  // them while fast-check walks the search, so it walks it exactly as it would have alone.
  const ahead =
    options.judges === undefined || options.path !== undefined
      ? undefined
      : await judgeAhead(options.judges, options, plans, checkOptions, {
          worldSeed,
          started,
        });

  // Every plan judged ahead and none failed: the walk would answer each from `ahead` and pass.
  // Skipping it spares the main thread a second draw of every plan while the workers wait.
  if (ahead !== undefined && ahead.size === runs && [...ahead.values()].every((v) => !v.failing))
    return {
      kind: 'passed',
      scenarioId: scenario.id,
      agent: agent.name,
      seed,
      worldSeed,
      maxFaults,
      runs,
      elapsedMs: performance.now() - started,
    };

  let searched = 0;
  let shrinks = 0;
  let failing: JudgedPlan | undefined;
  let harness: Error | undefined;
  const property = fc.asyncProperty(plans, async (plan): Promise<boolean> => {
    const shrinking = failing !== undefined;
    const known = shrinking ? undefined : ahead?.get(searched);
    // A verdict judged ahead stands for the plan drawn here (the ids say it is the same plan);
    // undefined when it passed.
    const answered = known !== undefined && known.plan.id === plan.id;
    let judged: JudgedPlan | undefined;
    try {
      judged = answered ? known.failing : await judgePlanIn(judgeOptions, plan);
    } catch (error) {
      harness ??= error instanceof Error ? error : new Error(String(error));
      throw new HarnessFailure('the harness failed', { cause: error });
    }
    if (shrinking) shrinks++;
    else searched++;
    const broken = judged !== undefined && judged.violations.length > 0;
    if (broken) failing = judged;
    // Verdicts judged ahead were reported as they came.
    if (!answered)
      options.onProgress?.({
        phase: shrinking ? 'shrink' : 'search',
        runs: searched,
        shrinks,
        elapsedMs: performance.now() - started,
      });
    return !broken;
  });
  const details = await fc.check(property, checkOptions);
  if (harness !== undefined) throw harness;

  const common: ExploreCommon = {
    scenarioId: scenario.id,
    agent: agent.name,
    seed: details.seed,
    worldSeed,
    maxFaults,
    runs: searched,
    elapsedMs: performance.now() - started,
  };
  if (!details.failed) return { kind: 'passed', ...common };
  const plan = details.counterexample?.[0];
  if (!plan || details.counterexamplePath === null)
    throw new Error('fast-check reported a failure without a counterexample');
  // The last failing run is the shrunk counterexample; judge it again if that ever differs.
  const final = failing?.plan.id === plan.id ? failing : await judgePlanIn(judgeOptions, plan);
  return {
    kind: 'counterexample',
    ...common,
    plan,
    path: details.counterexamplePath,
    shrinks: details.numShrinks,
    violations: final.violations,
    success: final.success,
    trajectory: final.trajectory,
  };
}

/**
 * Draws the plans the search will try (fast-check draws each run's value from the seed alone,
 * whatever the verdicts before it), has `judges` judge them in parallel up to the first that
 * fails, and returns the verdicts by position: the judgement of a plan that broke an
 * invariant, nothing for one that passed.
 */
async function judgeAhead(
  judges: PlanJudges,
  options: ExploreOptions,
  arbitrary: fc.Arbitrary<FaultPlan>,
  checkOptions: { numRuns: number; seed: number },
  context: { worldSeed: number; started: number },
): Promise<Map<number, { plan: FaultPlan; failing: JudgedPlan | undefined }>> {
  if (options.invariants !== undefined)
    throw new Error('explore: judges check the built-in invariants; leave invariants out');
  const drawn: FaultPlan[] = [];
  await fc.check(
    fc.asyncProperty(arbitrary, (plan) => {
      drawn.push(plan);
      return Promise.resolve(true);
    }),
    checkOptions,
  );
  const verdicts = new Map<number, { plan: FaultPlan; failing: JudgedPlan | undefined }>();
  let firstFailing = Infinity;
  await judges.judge(
    options.scenario,
    drawn,
    {
      worldSeed: context.worldSeed,
      ...(options.witness === undefined ? {} : { witness: options.witness }),
    },
    (index, failing) => {
      const plan = drawn[index];
      if (!plan) return;
      if (failing) firstFailing = Math.min(firstFailing, index);
      verdicts.set(index, { plan, failing });
      options.onProgress?.({
        phase: 'search',
        runs: verdicts.size,
        shrinks: 0,
        elapsedMs: performance.now() - context.started,
      });
    },
    () => firstFailing !== Infinity,
  );
  return verdicts;
}

/** What the explored agent lets faults reach, from what an instance of it exposes. */
async function reachOfAgent(agent: ExploreAgent): Promise<AgentReach> {
  const built = await agent.create({ store: 'memory' });
  built.discard?.();
  const exposes = built.exposes ?? {};
  return { probes: exposes.probes === true, planner: exposes.planner === true };
}
