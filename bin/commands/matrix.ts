import { parseArgs } from 'node:util';
import { NO_FAULTS } from '../../faults/catalog.js';
import { gradeRun } from '../../graders/index.js';
import { detectionMatrix, EXPECTED_DETECTIONS, type MatrixRun } from '../../graders/matrix.js';
import { renderMatrix } from '../../reports/matrix-table.js';
import { ZOO, type ZooEntry } from '../../scenarios/agents/zoo.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { runScenario } from '../../scenarios/runner.js';
import { matchesAny } from '../glob.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const MATRIX_HELP = `Usage: faultline matrix [scenario globs…] [options]

Runs every agent of the zoo over the scenarios (each without faults and under each of its
fault plans), grades every run, and prints agents × dimensions with the finding codes raised.
The matrix holds when each mutant fails its expected dimension with its finding code on at
least two scenarios in two worlds (misattributes-sources: two scenarios, in the one world
with sources to cite), and the reference agent passes every dimension of every run with no
finding.

Options:
  --agent NAME   only this agent (repeatable; default: the whole zoo)
  --json         print the matrix as JSON instead of a table
  --out DIR      where run stores go (default: .faultline/)
  -h, --help     show this help

Exit codes: 0 the matrix holds, 1 an expected detection was missed or the reference failed
something, 2 bad arguments.`;

export async function matrixCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      agent: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      out: { type: 'string', default: '.faultline' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(MATRIX_HELP);
    return 0;
  }
  const names = values.agent ?? ZOO.map((a) => a.name);
  const agents = names.map((name) => {
    const entry = ZOO.find((a) => a.name === name);
    if (!entry)
      throw new UsageError(
        `unknown agent "${name}" (agents: ${ZOO.map((a) => a.name).join(', ')})`,
      );
    return entry;
  });
  const scenarios = BUILT_IN_SCENARIOS.filter((s) => matchesAny(s.id, positionals));
  if (scenarios.length === 0)
    throw new UsageError(
      `no scenario matches ${positionals.join(', ')} (known: ${BUILT_IN_SCENARIOS.map((s) => s.id).join(', ')})`,
    );
  const started = performance.now();
  const runs = await collectMatrixRuns(agents, scenarios, values.out, (done, total, run) => {
    io.progress(
      `[${done}/${total}] ${run.grades.pass ? 'pass' : 'fail'} ${run.agent} · ${run.scenarioId} / ${run.faultPlanId}`,
    );
  });
  io.progressDone();
  // Only the mutants that were run are expected to be caught.
  const expected = Object.fromEntries(
    Object.entries(EXPECTED_DETECTIONS).filter(([agent]) => names.includes(agent)),
  );
  const report = detectionMatrix(runs, expected);
  if (values.json) io.out(JSON.stringify(report, null, 2));
  else {
    io.out(renderMatrix(report, { color: io.color }));
    io.out(
      `${runs.length} run(s) of ${agents.length} agent(s) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  return report.ok ? 0 : 1;
}

/**
 * Runs each agent over each scenario, without faults and under each of its fault plans, and
 * grades every run. Serial, so figures and stores are deterministic.
 */
export async function collectMatrixRuns(
  agents: readonly ZooEntry[],
  scenarios: readonly Scenario[],
  outDir: string,
  onRun: (done: number, total: number, run: MatrixRun) => void = () => undefined,
): Promise<MatrixRun[]> {
  const cases = agents.flatMap((agent) =>
    scenarios.flatMap((scenario) =>
      [NO_FAULTS, ...scenario.faultPlans].map((faultPlan) => ({ agent, scenario, faultPlan })),
    ),
  );
  const runs: MatrixRun[] = [];
  for (const [i, c] of cases.entries()) {
    const result = await runScenario(c.scenario, {
      outDir,
      agent: () => c.agent.create(),
      faultPlan: c.faultPlan,
    });
    const run: MatrixRun = {
      agent: c.agent.name,
      scenarioId: c.scenario.id,
      world: c.scenario.world.name,
      faultPlanId: c.faultPlan.id,
      grades: gradeRun(c.scenario, result.trajectory),
    };
    runs.push(run);
    onRun(i + 1, cases.length, run);
  }
  return runs;
}
