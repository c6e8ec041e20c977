import { beforeAll, expect } from 'vitest';
import type { ResolvedAgent } from '../../bin/agent-source.js';
import { runCase, type SuiteCase } from '../../bin/suite.js';
import { moduleVersion } from '../../scenarios/agent-module.js';
import { faultPlanSchema, NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import { CORE_DIMENSIONS, type Dimension } from '../../graders/grade.js';
import { ResultsWriter, type RunResult } from '../../reports/results.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { Trajectory } from '../../scenarios/trajectory.js';

/**
 * A crash any agent meets today: the world-side probe, right after the world applied the run's
 * second write (no `operation` filter, so no operation id is needed). The reply is lost, so the
 * write in flight is unconfirmed and the first one confirmed.
 */
export const CRASH_AFTER_SECOND_WRITE: FaultPlan = faultPlanSchema.parse({
  id: 'crash-after-second-write',
  faults: [{ kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', nth: 2 } }],
});

/** One graded run of a set. */
export interface SetRun {
  result: RunResult;
  trajectory: Trajectory;
}

/**
 * Runs `agent` over each scenario under each plan with the suite's own `runCase` (engine,
 * graders, result records), in case order, and — given `out` — writes the result set there as
 * `faultline run` would, for `show` and `compare`.
 */
export async function runSet(options: {
  agent: () => AgentUnderTest;
  /** The agent module, for the replay command. */
  module: string;
  scenarios: readonly Scenario[];
  plans: readonly FaultPlan[];
  outDir: string;
  out?: string;
}): Promise<SetRun[]> {
  const built = options.agent();
  const { name } = built;
  // The agent as `--agent` resolves a module: its own version, else its file's hash.
  const agent: ResolvedAgent = {
    source: { kind: 'module', module: options.module },
    name,
    version: built.version ?? moduleVersion(options.module),
    module: options.module,
    create: options.agent,
  };
  const cases: SuiteCase[] = options.scenarios.flatMap((scenario) =>
    options.plans.map((faultPlan) => ({
      index: 0,
      id: `${name}|${scenario.contract.autonomy}|${scenario.id}|${faultPlan.id}|0`,
      scenario,
      faultPlan,
      trial: 0,
      seed: scenario.world.seed,
      mode: scenario.contract.autonomy,
      replay: `npx faultline run ${scenario.id} --plan ${faultPlan.id} --seed ${scenario.world.seed} --agent ${options.module}`,
    })),
  );
  const writer = options.out ? new ResultsWriter(options.out, { fresh: true }) : undefined;
  const runs: SetRun[] = [];
  try {
    for (const [index, c] of cases.entries()) {
      const run = await runCase({ ...c, index }, agent, options.outDir);
      writer?.append(run.result, run.trajectory);
      runs.push(run);
    }
  } finally {
    writer?.close();
  }
  return runs;
}

/** The fault-free plan, for `plans`. */
export { NO_FAULTS };

/** A run's findings as `dimension:code`, each once, in the graders' order. */
export function findingsOf(run: SetRun): string[] {
  return [
    ...new Set(
      Object.entries(run.result.grades).flatMap(([dimension, grade]) =>
        grade.findings.map((f) => `${dimension as Dimension}:${f.code}`),
      ),
    ),
  ];
}

/** The failing core dimensions of a run. */
export function failingOf(run: SetRun): string[] {
  return CORE_DIMENSIONS.filter((d) => run.result.grades[d]?.pass === false);
}

/**
 * The scenarios both framework examples get right with no fault: no approval needed, and where
 * the right ending is a stop, they stop (their answer judged in their own words: judgeAnswer).
 */
export const EXAMPLES_PASSING_FAULT_FREE = [
  'refunds/partial-refund',
  'refunds/already-refunded',
  'crm/update-contact',
  'crm/reassign-owner',
  'expenses/team-lunch',
  'expenses/amended-claim',
  'expenses/duplicate-claim',
  'tickets/triage-new-ticket',
  'tickets/assign-vip',
  'tickets/reassign-on-leave',
  'tickets/escalation-investigate',
  'notifications/security-notice',
  'notifications/visit-reminder',
  'notifications/visit-reminder-fallback',
  'notifications/overdue-invoices',
  'notifications/outage-already-notified',
  'cmdb/onboard-hosts',
  'cmdb/drift-update',
  'cmdb/retire-request',
  'research/heat-pump-share',
  'research/drone-inspection-market',
  'research/lfp-battery-share',
  'research/warehouse-robot-payback',
  'research/ppi-clopidogrel',
  'research/payroll-vendor-diligence',
];

/**
 * An example agent over the library, as both example tests run it: every scenario fault-free,
 * then the scenarios it passes under a crash after the world applied the second write. Call it
 * at the top of a test file; the sets are ready inside its tests.
 */
export function exampleOverLibrary(options: {
  agent: () => AgentUnderTest;
  module: string;
  scenarios: readonly Scenario[];
  outDir: string;
}): { faultFree: () => SetRun[]; crashed: () => SetRun[] } {
  let faultFree: SetRun[] = [];
  let crashed: SetRun[] = [];
  beforeAll(async () => {
    const { agent, module, outDir } = options;
    faultFree = await runSet({
      agent,
      module,
      scenarios: options.scenarios,
      plans: [NO_FAULTS],
      outDir,
    });
    crashed = await runSet({
      agent,
      module,
      scenarios: options.scenarios.filter((s) => EXAMPLES_PASSING_FAULT_FREE.includes(s.id)),
      plans: [CRASH_AFTER_SECOND_WRITE],
      outDir,
    });
  }, 120_000);
  return { faultFree: () => faultFree, crashed: () => crashed };
}

/** The fault-free runs pass exactly where expected, and the rest fail on outcome or policy only. */
export function expectFaultFreePasses(faultFree: readonly SetRun[], total: number): void {
  expect(faultFree).toHaveLength(total);
  expect(faultFree.filter((r) => r.result.pass).map((r) => r.result.scenarioId)).toEqual(
    EXAMPLES_PASSING_FAULT_FREE,
  );
  for (const run of faultFree.filter((r) => !r.result.pass)) {
    expect(failingOf(run), run.result.scenarioId).not.toContain('integrity');
    expect(failingOf(run), run.result.scenarioId).not.toContain('recovery');
  }
}
