import { parseArgs } from 'node:util';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import { ZOO, zooAgent } from '../../scenarios/agents/zoo.js';
import { loadScenarioFile } from '../../scenarios/load.js';
import { loadRegressions } from '../../scenarios/regression.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { runScenario, type ScenarioRunResult } from '../../scenarios/runner.js';
import { formatDuration } from '../../reports/duration.js';
import { renderPassLine } from '../../reports/pass-line.js';
import { renderRunTable, type RunRow } from '../../reports/run-table.js';
import { gradeRun } from '../../graders/index.js';
import { gradedRun, suiteMetrics, type GradedRun } from '../../graders/metrics.js';
import { matchesAny } from '../glob.js';
import { UsageError } from '../usage-error.js';
import type { Io } from '../io.js';

export const RUN_HELP = `Usage: faultline run [scenario globs…] [options]

Runs scenarios through an agent (the reference runtime by default) on a virtual clock, grades
every run, and prints what happened.
With no globs, runs the whole built-in suite.

Arguments:
  scenario globs     ids or globs, e.g. refunds/full-refund, 'refunds/*', refunds

Every scenario runs once without faults and once per fault plan it declares. Regression files
(JSON: a scenario id, a seed and a fault plan) in the regressions folder run too.

Options:
  --agent NAME       the agent under test (default: reference; see the zoo below)
  --scenarios FILE   also load scenarios from FILE (.ts/.js module or .json); repeatable
  --regressions DIR  regression files to include (default: regressions/, if it exists)
  --plan ID          run only fault plan ID of each scenario ("none" for the fault-free run)
  --seed N           world seed for every scenario (default: each scenario's own)
  --out DIR          where run stores go (default: .faultline/)
  -h, --help         show this help

Agents: ${ZOO.map((a) => a.name).join(', ')}.

Every run is graded on outcome, policy, integrity, recovery, tool use, efficiency, operational
fit and evidence; it passes when it ends as its scenario expects and outcome, policy, integrity
and recovery pass.

Exit codes: 0 every run passed, 1 one or more failed, 2 bad arguments.`;

export async function runCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      seed: { type: 'string' },
      scenarios: { type: 'string', multiple: true },
      regressions: { type: 'string', default: 'regressions' },
      plan: { type: 'string' },
      agent: { type: 'string', default: 'reference' },
      out: { type: 'string', default: '.faultline' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(RUN_HELP);
    return 0;
  }
  let seed: number | undefined;
  if (values.seed !== undefined) {
    if (!/^\d+$/.test(values.seed))
      throw new UsageError(`--seed must be a whole number ≥ 0 (got "${values.seed}")`);
    seed = Number(values.seed);
  }
  const agent = zooAgent(values.agent);
  if (!agent)
    throw new UsageError(
      `unknown agent "${values.agent}" (agents: ${ZOO.map((a) => a.name).join(', ')})`,
    );
  const loaded = [...BUILT_IN_SCENARIOS];
  for (const file of values.scenarios ?? []) loaded.push(...(await loadScenarioFile(file)));
  const scenarios = loaded.filter((s) => matchesAny(s.id, positionals));
  const regressions = (await loadRegressions(values.regressions, loaded)).filter((r) =>
    matchesAny(r.scenario.id, positionals),
  );
  if (scenarios.length === 0 && regressions.length === 0) {
    throw new UsageError(
      `no scenario matches ${positionals.join(', ')} (known: ${loaded.map((s) => s.id).join(', ')})`,
    );
  }
  const cases: { scenario: Scenario; faultPlan: FaultPlan; seed?: number }[] = [
    ...scenarios.flatMap((scenario) =>
      [NO_FAULTS, ...scenario.faultPlans].map((faultPlan) => ({
        scenario,
        faultPlan,
        ...(seed === undefined ? {} : { seed }),
      })),
    ),
    ...regressions.map((r) => ({ scenario: r.scenario, faultPlan: r.faultPlan, seed: r.seed })),
  ].filter((c) => values.plan === undefined || c.faultPlan.id === values.plan);
  if (cases.length === 0) {
    throw new UsageError(`no fault plan "${values.plan ?? ''}" in the matching scenarios`);
  }

  const results: (ScenarioRunResult & { pass: boolean; findings: RunRow['findings'] })[] = [];
  const graded: GradedRun[] = [];
  const started = performance.now();
  for (const [i, c] of cases.entries()) {
    const result = await runScenario(c.scenario, {
      outDir: values.out,
      agent: () => agent.create(),
      faultPlan: c.faultPlan,
      ...(c.seed === undefined ? {} : { seed: c.seed }),
    });
    const grades = gradeRun(c.scenario, result.trajectory);
    graded.push(gradedRun(c.scenario, result.trajectory, grades));
    const findings = Object.values(grades.grades).flatMap((g) =>
      g.findings.map((f) => ({ dimension: g.dimension, code: f.code, message: f.message })),
    );
    const pass = grades.pass && result.asExpected;
    results.push({ ...result, pass: grades.pass, findings });
    io.progress(
      `[${i + 1}/${cases.length}] ${pass ? 'ok  ' : 'FAIL'} ${c.scenario.id} / ${c.faultPlan.id} → ${result.state} (${formatDuration(result.virtualMs)} virtual)`,
    );
  }
  io.progressDone();
  io.out(renderRunTable(results, { color: io.color }));
  const failed = results.filter((r) => !r.asExpected || !r.pass).length;
  const virtual = results.reduce((sum, r) => sum + r.virtualMs, 0);
  io.out(renderPassLine(suiteMetrics(graded)));
  io.out(
    `${results.length} run(s): ${results.length - failed} passed, ${failed} failed · ` +
      `${formatDuration(virtual)} virtual in ${((performance.now() - started) / 1000).toFixed(2)} s · stores in ${values.out}/stores`,
  );
  return failed === 0 ? 0 : 1;
}
