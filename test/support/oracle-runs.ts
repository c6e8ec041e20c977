import { setupServer, type SetupServerApi } from 'msw/node';
import { runCase, type SuiteCase } from '../../bin/suite.js';
import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import type { RunResult } from '../../reports/results.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { Trajectory } from '../../scenarios/trajectory.js';
import {
  ORACLE_KEY_ENV,
  ORACLE_MODEL,
  oracleHandlers,
  type ChatRequest,
  type OracleOptions,
} from './oracle.js';

/** One graded run, and every request its agent sent the oracle. */
export interface OracleRun {
  result: RunResult;
  trajectory: Trajectory;
  requests: ChatRequest[];
}

/**
 * The oracle served over msw as the OpenAI API, for a test file or a bench: `start` before the
 * runs, `stop` after. Requests are collected per run by {@link runWithOracle}.
 */
export class OracleServer {
  private readonly server: SetupServerApi;
  private requests: ChatRequest[] = [];

  constructor(options: OracleOptions = {}) {
    this.server = setupServer(
      ...oracleHandlers({ ...options, onRequest: (body) => this.requests.push(body) }),
    );
  }

  start(): void {
    process.env[ORACLE_KEY_ENV] = 'sk-oracle-test';
    this.server.listen({ onUnhandledRequest: 'error' });
  }

  stop(): void {
    this.server.close();
    Reflect.deleteProperty(process.env, ORACLE_KEY_ENV);
  }

  /** The requests since the last call, handed over. */
  take(): ChatRequest[] {
    const taken = this.requests;
    this.requests = [];
    return taken;
  }
}

/**
 * Runs a zoo agent over one scenario and plan with the suite's own `runCase` (engine, graders,
 * result record), its model `openai:gpt-test` answered by the oracle over HTTP.
 */
export async function runWithOracle(
  server: OracleServer,
  options: { agent: string; scenario: Scenario; plan?: FaultPlan; outDir: string },
): Promise<OracleRun> {
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
    replay: `npx faultline run ${scenario.id} --plan ${faultPlan.id} --agent ${agent} --model ${ORACLE_MODEL.spec}`,
  };
  server.take();
  const { result, trajectory } = await runCase(c, agent, options.outDir, ORACLE_MODEL);
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
