import { parseArgs } from 'node:util';
import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import { gradeRun } from '../../graders/index.js';
import { FINDING_CODES } from '../../graders/grade.js';
import {
  detectionBar,
  detectionMatrix,
  EXPECTED_DETECTIONS,
  type MatrixRun,
} from '../../graders/matrix.js';
import { renderMatrix } from '../../reports/matrix-table.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import { ZOO } from '../../scenarios/agents/zoo.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { runScenario } from '../../scenarios/runner.js';
import { chooseAgent, resolveAgent } from '../agent-source.js';
import { configFile, loadConfig } from '../config.js';
import { matchesAny } from '../glob.js';
import type { Io } from '../io.js';
import { checkOutputFolder } from '../output-folder.js';
import { UsageError } from '../usage-error.js';

export const MATRIX_HELP = `Usage: faultline matrix [scenario globs…] [options]

Runs every agent of the zoo over the scenarios (each without faults and under each of its
fault plans), grades every run, and prints agents × dimensions with the finding codes raised.
The matrix holds when each mutant fails its expected dimension with its finding code on at
least two scenarios in two worlds (misattributes-sources: two scenarios, in the one world
with sources to cite), and the reference agent passes every dimension of every run with no
finding.

Options:
  --agent NAME   only this agent (repeatable; default: the whole zoo): a zoo agent, a name
                 from the config's agents, or a module path (./my-agent.ts)
  --quick        run only as much as shows the matrix holds: the reference on every run,
                 each mutant until its detection bar is met, each scenario until some agent
                 fails it (a fraction of the runs; cells list only the codes seen)
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
      quick: { type: 'boolean', default: false },
      out: { type: 'string', default: '.faultline' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(MATRIX_HELP);
    return 0;
  }
  checkOutputFolder(values.out, '--out');
  // A model-driven agent needs a model the matrix does not give: named with --agent only.
  const names =
    values.agent ?? ZOO.filter((a) => a.create().exposes?.model !== true).map((a) => a.name);
  const config = await loadConfig(undefined);
  const configured = { file: configFile(), agents: config.agents };
  const agents: MatrixAgent[] = [];
  for (const name of names) agents.push(await resolveAgent(chooseAgent(name, configured)));
  const scenarios = BUILT_IN_SCENARIOS.filter((s) => matchesAny(s.id, positionals));
  if (scenarios.length === 0)
    throw new UsageError(
      `no scenario matches ${positionals.join(', ')} (known: ${BUILT_IN_SCENARIOS.map((s) => s.id).join(', ')})`,
    );
  const started = performance.now();
  const onRun = (done: number, total: number | undefined, run: MatrixRun): void => {
    io.progress(
      `[${done}${total === undefined ? '' : `/${total}`}] ${run.grades.pass ? 'pass' : 'fail'} ${run.agent} · ${run.scenarioId} / ${run.faultPlanId}`,
    );
  };
  const runs = values.quick
    ? await collectQuickMatrixRuns(agents, scenarios, values.out, onRun)
    : await collectMatrixRuns(agents, scenarios, values.out, onRun);
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

/** An agent of the matrix: a zoo agent, or a user's (then built from its module per run). */
export interface MatrixAgent {
  readonly name: string;
  create(): AgentUnderTest | Promise<AgentUnderTest>;
  /** The absolute path of the agent's module, when it comes from one (see TrialOptions). */
  readonly module?: string;
}

/**
 * Runs each agent over each scenario, without faults and under each of its fault plans, and
 * grades every run. Serial, so figures and stores are deterministic.
 */
export async function collectMatrixRuns(
  agents: readonly MatrixAgent[],
  scenarios: readonly Scenario[],
  outDir: string,
  onRun: (done: number, total: number | undefined, run: MatrixRun) => void = () => undefined,
): Promise<MatrixRun[]> {
  const cases = agents.flatMap((agent) =>
    scenarios.flatMap((scenario) =>
      [NO_FAULTS, ...scenario.faultPlans].map((faultPlan) => ({ agent, scenario, faultPlan })),
    ),
  );
  const runs: MatrixRun[] = [];
  for (const [i, c] of cases.entries()) {
    const run = await matrixRun(c.agent, c.scenario, c.faultPlan, outDir);
    runs.push(run);
    onRun(i + 1, cases.length, run);
  }
  return runs;
}

async function matrixRun(
  agent: MatrixAgent,
  scenario: Scenario,
  faultPlan: FaultPlan,
  outDir: string,
): Promise<MatrixRun> {
  const result = await runScenario(scenario, {
    outDir,
    agent: () => agent.create(),
    ...(agent.module === undefined ? {} : { agentModule: agent.module }),
    faultPlan,
  });
  return {
    agent: agent.name,
    scenarioId: scenario.id,
    world: scenario.world.name,
    faultPlanId: faultPlan.id,
    grades: gradeRun(scenario, result.trajectory),
  };
}

/**
 * The runs that show the matrix holds, and no more: the reference on every scenario and plan
 * (it must pass all of them); each expected mutant over the scenarios — one world after another
 * in turn, so that worlds vary early — until its detection bar is met; then, for any scenario no
 * run has failed yet and any other agent not yet caught, agents and plans until one fails.
 * What `detectionMatrix` judges from these is what it would judge from the full matrix, except
 * that cells list only the codes raised by the runs made.
 */
export async function collectQuickMatrixRuns(
  agents: readonly MatrixAgent[],
  scenarios: readonly Scenario[],
  outDir: string,
  onRun: (done: number, total: number | undefined, run: MatrixRun) => void = () => undefined,
  reference = 'reference',
): Promise<MatrixRun[]> {
  const runs: MatrixRun[] = [];
  const plansOf = (s: Scenario): FaultPlan[] => [NO_FAULTS, ...s.faultPlans];
  const run = async (
    agent: MatrixAgent,
    scenario: Scenario,
    plan: FaultPlan,
  ): Promise<MatrixRun> => {
    const made = await matrixRun(agent, scenario, plan, outDir);
    runs.push(made);
    onRun(runs.length, undefined, made);
    return made;
  };

  for (const agent of agents.filter((a) => a.name === reference))
    for (const scenario of scenarios)
      for (const plan of plansOf(scenario)) await run(agent, scenario, plan);

  // Scenarios ordered round-robin over worlds: the first two usually come from two worlds.
  const byWorld = new Map<string, Scenario[]>();
  for (const s of scenarios) {
    const world = byWorld.get(s.world.name);
    if (world === undefined) byWorld.set(s.world.name, [s]);
    else world.push(s);
  }
  const queues = [...byWorld.values()];
  const interleaved: Scenario[] = [];
  for (let i = 0; interleaved.length < scenarios.length; i++)
    for (const q of queues) {
      const next = q[i];
      if (next) interleaved.push(next);
    }

  for (const agent of agents) {
    const code = EXPECTED_DETECTIONS[agent.name];
    if (agent.name === reference || code === undefined) continue;
    const { dimension } = FINDING_CODES[code];
    const bar = detectionBar(agent.name);
    const caughtIn = new Set<string>();
    const worlds = new Set<string>();
    for (const scenario of interleaved) {
      if (caughtIn.size >= bar.scenarios && worlds.size >= bar.worlds) break;
      // A second scenario from a world already counted only helps when scenarios are short.
      if (worlds.has(scenario.world.name) && caughtIn.size >= bar.scenarios) continue;
      for (const plan of plansOf(scenario)) {
        const made = await run(agent, scenario, plan);
        const g = made.grades.grades[dimension];
        if (!g.pass && g.findings.some((f) => f.code === code)) {
          caughtIn.add(scenario.id);
          worlds.add(scenario.world.name);
          break;
        }
      }
    }
  }

  const others = agents.filter((a) => a.name !== reference);
  for (const scenario of scenarios) {
    if (runs.some((r) => r.scenarioId === scenario.id && r.agent !== reference && !r.grades.pass))
      continue;
    search: for (const agent of others)
      for (const plan of plansOf(scenario))
        if (!(await run(agent, scenario, plan)).grades.pass) break search;
  }
  for (const agent of others) {
    if (agent.name in EXPECTED_DETECTIONS) continue;
    if (runs.some((r) => r.agent === agent.name && !r.grades.pass)) continue;
    search: for (const scenario of scenarios)
      for (const plan of plansOf(scenario))
        if (!(await run(agent, scenario, plan)).grades.pass) break search;
  }
  return runs;
}
