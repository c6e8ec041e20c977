import { runSuite } from '../../bin/run-suite.js';
import type { SuiteOptions } from '../../bin/suite.js';
import { CORE_DIMENSIONS, DIMENSIONS, type Dimension } from '../../graders/grade.js';
import { readResults, runResultSchema, type RunResult } from '../../reports/results.js';

/** What a fixture suite differs in; the rest defaults to {@link makeResultSet}'s suite. */
export type ResultSetSpec = Partial<SuiteOptions> & Pick<SuiteOptions, 'agent'>;

/**
 * Runs a real suite into the result set folder `out` and reads its records back as a report
 * would. Unless told otherwise: the partial refund under its lost-acknowledgement plans, one
 * trial each, built-in scenarios only, and no regression files (so a fixture never depends on
 * what a `regressions/` folder holds).
 *
 * @example
 * const results = await makeResultSet(tempDir('json'), { agent: 'no-reconcile', trials: 2 });
 */
export async function makeResultSet(out: string, spec: ResultSetSpec): Promise<RunResult[]> {
  await runSuite(
    {
      globs: ['refunds/partial-refund'],
      faults: 'lost-ack',
      trials: 1,
      scenarioFiles: [],
      regressions: 'none',
      ...spec,
    },
    { out },
  );
  return readResults(out).results;
}

/** How a hand-made run record differs from a passing fault-free reference run. */
export interface RunSpec {
  scenarioId?: string;
  faultPlanId?: string;
  /** 7 + the trial unless told. */
  seed?: number;
  trial?: number;
  agent?: string;
  /** The agent's version ("unknown" unless told, as a record made before versions reads). */
  agentVersion?: string;
  mode?: string;
  faultKinds?: string[];
  faultsFired?: string[];
  /** Failing dimensions and the finding codes each raised. */
  fail?: Partial<Record<Dimension, string[]>>;
  /** Findings on dimensions that still pass. */
  findings?: Partial<Record<Dimension, string[]>>;
  /** The model behind the agent (none unless told). */
  model?: RunResult['model'];
  modelCassettes?: RunResult['modelCassettes'];
  contractVersion?: string;
  policyVersion?: string | null;
  /** The replay command (one naming scenario, plan, seed and agent unless told). */
  replay?: string;
}

/**
 * A hand-made run record, checked against the results schema so it is one a set could hold: for
 * tests of reports that need exact counts rather than real runs.
 *
 * @example
 * const failing = runRecord({ trial: 1, fail: { outcome: ['state-mismatch'] } });
 */
export function runRecord(spec: RunSpec = {}): RunResult {
  const {
    scenarioId = 'refunds/full-refund',
    faultPlanId = 'none',
    trial = 0,
    seed = 7 + trial,
    agent = 'reference',
    agentVersion,
    mode = 'supervised',
    fail = {},
    findings = {},
  } = spec;
  const id = `${agent}|${mode}|${scenarioId}|${faultPlanId}|${trial}`;
  return runResultSchema.parse({
    format: 'faultline-run-result',
    version: 1,
    id,
    index: 0,
    agent,
    ...(agentVersion === undefined ? {} : { agentVersion }),
    ...(spec.model === undefined ? {} : { model: spec.model }),
    ...(spec.modelCassettes === undefined ? {} : { modelCassettes: spec.modelCassettes }),
    ...(spec.contractVersion === undefined ? {} : { contractVersion: spec.contractVersion }),
    ...(spec.policyVersion === undefined ? {} : { policyVersion: spec.policyVersion }),
    mode,
    scenarioId,
    title: scenarioId,
    world: 'refunds',
    workflowClass: 'refund',
    tier: 'high',
    faultPlanId,
    faultKinds: spec.faultKinds ?? [],
    faultsFired: spec.faultsFired ?? [],
    trial,
    seed,
    state: 'completed',
    stopReason: null,
    detail: null,
    pass: CORE_DIMENSIONS.every((d) => fail[d] === undefined),
    grades: Object.fromEntries(
      DIMENSIONS.map((d) => [
        d,
        {
          dimension: d,
          pass: fail[d] === undefined,
          score: fail[d] === undefined ? 1 : 0,
          findings: [...(fail[d] ?? []), ...(findings[d] ?? [])].map((code) => ({
            code,
            message: code,
            refs: [],
          })),
          figures: {},
          whiteBoxSkipped: false,
        },
      ]),
    ),
    mismatches: [],
    figures: {
      virtualMs: 0,
      wallMs: 0,
      calls: 0,
      okCalls: 0,
      writesConfirmed: 0,
      effects: 0,
      retries: 0,
      crashes: 0,
      evidenceRequired: 0,
      evidenceLinked: 0,
    },
    interventions: [],
    replay:
      spec.replay ??
      `npx faultline run ${scenarioId} --plan ${faultPlanId} --seed ${seed} --agent ${agent}`,
    trajectoryFile: `trajectories/${id}.json`,
  });
}
