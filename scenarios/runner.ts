import { NO_FAULTS, type FaultPlan } from '../faults/catalog.js';
import type { ModelSetup } from '../models/model-setup.js';
import type { Safeguards } from '../runtime/safeguards.js';
import type { AgentRecords, AgentUnderTest } from './agent.js';
import { ReferenceAgent } from './agents/reference.js';
import { runTrial, type TrialOptions } from './engine.js';
import type { RunClock } from './run-clock.js';
import type { Scenario } from './scenario.js';
import type { Trajectory } from './trajectory.js';

export interface RunScenarioOptions {
  /** Where run stores go (one SQLite file per run under `stores/`). */
  outDir: string;
  /** Overrides the scenario's world seed. */
  seed?: number;
  safeguards?: Partial<Safeguards>;
  /** The agent under test (default: the reference runtime with `safeguards`). */
  agent?: () => AgentUnderTest | Promise<AgentUnderTest>;
  /** The absolute path of the agent's module, when it comes from one (see TrialOptions). */
  agentModule?: string;
  /** Faults to inject (default: none). */
  faultPlan?: FaultPlan;
  /** Which trial of the scenario and plan this is (recorded in the trajectory; default 0). */
  trial?: number;
  /** The run's clock (default: a virtual one; see `TrialOptions.clock`). */
  clock?: RunClock;
  /** Wall-clock limit for the run (default: the engine's). */
  wallLimitMs?: number;
  /** The model the agent is given as `run.model` (see `TrialOptions.model`). */
  model?: ModelSetup;
  /** Builds the run's world in place of the scenario's (see `TrialOptions.world`). */
  world?: TrialOptions['world'];
  /**
   * The run id (default: from the scenario, plan and seed). A replay runs under the recorded
   * session's id, so the idempotency keys an agent derives from it match the recording.
   */
  runId?: string;
  /** Names the store file when trials share a run id (see `TrialOptions.storeKey`). */
  storeKey?: string;
}

/** One scenario run, as plain data for reports. */
export interface ScenarioRunResult {
  scenarioId: string;
  faultPlanId: string;
  agent: string;
  title: string;
  runId: string;
  seed: number;
  state: string;
  stopReason: string | null;
  detail: string | null;
  writesConfirmed: number;
  effects: number;
  virtualMs: number;
  wallMs: number;
  /** Whether the run ended as the scenario expects (state, stop reason, world). */
  asExpected: boolean;
  mismatches: string[];
  storePath: string;
  /** Everything the harness saw, for graders. */
  trajectory: Trajectory;
}

export { scopeFromContract } from './scope.js';

/**
 * Runs one scenario end to end with the reference runtime and no faults: boots the seeded
 * world, sets the scene, serves the tools over MCP, runs to a terminal (or blocked) state on a
 * virtual clock, and checks the expected outcome against the world itself.
 */
export async function runScenario(
  scenario: Scenario,
  options: RunScenarioOptions,
): Promise<ScenarioRunResult> {
  const seed = options.seed ?? scenario.world.seed;
  const plan = options.faultPlan ?? NO_FAULTS;
  const runId =
    options.runId ??
    (plan.id === NO_FAULTS.id ? `${scenario.id}#${seed}` : `${scenario.id}#${plan.id}#${seed}`);
  const { trajectory, storePath, asExpected, mismatches } = await runTrial({
    scenario,
    agent: options.agent ?? (() => new ReferenceAgent('reference', options.safeguards ?? {})),
    faultPlan: plan,
    seed,
    ...(options.trial === undefined ? {} : { trial: options.trial }),
    ...(options.agentModule === undefined ? {} : { agentModule: options.agentModule }),
    runId,
    ...(options.storeKey === undefined ? {} : { storeKey: options.storeKey }),
    outDir: options.outDir,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.wallLimitMs === undefined ? {} : { wallLimitMs: options.wallLimitMs }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.world === undefined ? {} : { world: options.world }),
  });
  const actions = (trajectory.agentRecords as AgentRecords | null)?.actions ?? [];
  return {
    scenarioId: scenario.id,
    faultPlanId: plan.id,
    agent: trajectory.agent,
    title: scenario.title,
    runId,
    seed,
    state: trajectory.outcome.state,
    stopReason: trajectory.outcome.stopReason,
    detail: trajectory.outcome.detail,
    writesConfirmed: actions.filter(
      (a) => a.kind === 'write' && (a.status === 'confirmed' || a.status === 'reconciled'),
    ).length,
    effects: trajectory.ledger.filter((e) => e.runId === runId).length,
    virtualMs: trajectory.times.virtualMs,
    wallMs: trajectory.times.wallMs,
    asExpected,
    mismatches,
    storePath,
    trajectory,
  };
}
