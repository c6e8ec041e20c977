import { parseArgs } from 'node:util';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { loadScenarioFile } from '../../scenarios/load.js';
import { runScenario, type ScenarioRunResult } from '../../scenarios/runner.js';
import { formatDuration } from '../../reports/duration.js';
import { renderRunTable } from '../../reports/run-table.js';
import { matchesAny } from '../glob.js';
import { UsageError } from '../usage-error.js';
import type { Io } from '../io.js';

export const RUN_HELP = `Usage: faultline run [scenario globs…] [options]

Runs scenarios through the reference runtime on a virtual clock and prints what happened.
With no globs, runs the whole built-in suite.

Arguments:
  scenario globs     ids or globs, e.g. refunds/full-refund, 'refunds/*', refunds

Options:
  --scenarios FILE   also load scenarios from FILE (.ts/.js module or .json); repeatable
  --seed N           world seed for every scenario (default: each scenario's own)
  --out DIR          where run stores go (default: .faultline/)
  -h, --help         show this help

Exit codes: 0 every run ended as its scenario expects, 1 one or more did not, 2 bad arguments.`;

export async function runCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      seed: { type: 'string' },
      scenarios: { type: 'string', multiple: true },
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
  const loaded = [...BUILT_IN_SCENARIOS];
  for (const file of values.scenarios ?? []) loaded.push(...(await loadScenarioFile(file)));
  const scenarios = loaded.filter((s) => matchesAny(s.id, positionals));
  if (scenarios.length === 0) {
    throw new UsageError(
      `no scenario matches ${positionals.join(', ')} (known: ${loaded.map((s) => s.id).join(', ')})`,
    );
  }

  const results: ScenarioRunResult[] = [];
  const started = performance.now();
  for (const [i, scenario] of scenarios.entries()) {
    const result = await runScenario(scenario, {
      outDir: values.out,
      ...(seed === undefined ? {} : { seed }),
    });
    results.push(result);
    io.progress(
      `[${i + 1}/${scenarios.length}] ${result.asExpected ? 'ok  ' : 'FAIL'} ${scenario.id} → ${result.state} (${formatDuration(result.virtualMs)} virtual)`,
    );
  }
  io.progressDone();
  io.out(renderRunTable(results, { color: io.color }));
  const unexpected = results.filter((r) => !r.asExpected).length;
  const virtual = results.reduce((sum, r) => sum + r.virtualMs, 0);
  io.out(
    `${results.length} run(s): ${results.length - unexpected} as expected, ${unexpected} unexpected · ` +
      `${formatDuration(virtual)} virtual in ${((performance.now() - started) / 1000).toFixed(2)} s · stores in ${values.out}/stores`,
  );
  return unexpected === 0 ? 0 : 1;
}
