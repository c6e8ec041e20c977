import { runCase, type SuiteCase } from '../../bin/suite.js';
import type { ModelSetup } from '../../models/model-setup.js';
import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import type { RunResult } from '../../reports/results.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { Trajectory } from '../../scenarios/trajectory.js';
import { ORACLE_KEY_ENV, ORACLE_MODEL, oracleRespond, type OracleOptions } from './oracle.js';
import {
  startProviderServer,
  type ProviderRequest,
  type ProviderServer,
} from './provider-server.js';

/** One graded run, and every request its agent sent the oracle. */
export interface OracleRun {
  result: RunResult;
  trajectory: Trajectory;
  /** As the provider server saw them: `body` is the JSON sent over HTTP. */
  requests: ProviderRequest[];
}

/**
 * The oracle served over msw as the OpenAI API (the provider server), for a test file or a
 * bench: `start` before the runs, `stop` after.
 */
export class OracleServer {
  private provider: ProviderServer | undefined;
  private taken = 0;

  constructor(private readonly options: OracleOptions = {}) {}

  start(): void {
    process.env[ORACLE_KEY_ENV] = 'sk-oracle-test';
    this.provider = startProviderServer(oracleRespond(this.options));
  }

  /** Closes the server (again: nothing) and forgets the key. */
  stop(): void {
    this.provider?.close();
    this.provider = undefined;
    this.taken = 0;
    Reflect.deleteProperty(process.env, ORACLE_KEY_ENV);
  }

  /** The requests since the last call. */
  take(): ProviderRequest[] {
    const calls = this.provider?.calls ?? [];
    const fresh = calls.slice(this.taken).map((c) => c.request);
    this.taken = calls.length;
    return fresh;
  }
}

/**
 * Runs a zoo agent over one scenario and plan with the suite's own `runCase` (engine, graders,
 * result record), its model `openai:gpt-test` answered by the oracle over HTTP.
 */
export async function runWithOracle(
  server: OracleServer,
  options: {
    agent: string;
    scenario: Scenario;
    plan?: FaultPlan;
    outDir: string;
    /** The model setup (default: {@link ORACLE_MODEL}, OpenAI's API). */
    model?: ModelSetup;
  },
): Promise<OracleRun> {
  const model = options.model ?? ORACLE_MODEL;
  const { scenario, agent } = options;
  const faultPlan = options.plan ?? NO_FAULTS;
  const c: SuiteCase = {
    index: 0,
    id: `${agent}|${scenario.contract.autonomy}|${scenario.id}|${faultPlan.id}|0`,
    scenario,
    faultPlan,
    trial: 0,
    seed: scenario.world.seed,
    mode: scenario.contract.autonomy,
    replay: `npx faultline run ${scenario.id} --plan ${faultPlan.id} --agent ${agent} --model ${model.spec}`,
  };
  server.take();
  const { result, trajectory } = await runCase(c, agent, options.outDir, model);
  return { result, trajectory, requests: server.take() };
}

/** A run's findings as `dimension:code`, each once. */
export function findingCodes(run: Pick<OracleRun, 'result'>): string[] {
  return [
    ...new Set(
      Object.entries(run.result.grades).flatMap(([dimension, grade]) =>
        grade.findings.map((f) => `${dimension}:${f.code}`),
      ),
    ),
  ];
}
