import { parseArgs } from 'node:util';
import { judgeLevel, PromotionError, renderVerdict } from '../../reports/promote.js';
import { readResults } from '../../reports/results.js';
import { AUTONOMY_MODES, type AutonomyMode } from '../../runtime/contract.js';
import {
  AUTONOMY_LEVELS,
  gateCriteria,
  LEVEL_DEFAULTS,
  LEVEL_MODE,
  loadConfig,
  type AutonomyLevel,
  type GateCriteria,
} from '../config.js';
import type { Io } from '../io.js';
import { suiteSelection } from '../suite.js';
import { UsageError } from '../usage-error.js';

/** The criteria columns of the defaults table, in the order of the criteria list. */
const COLUMNS: readonly [keyof GateCriteria, string][] = [
  ['minRuns', 'runs'],
  ['k', 'k'],
  ['outcomePassK', 'outcome'],
  ['overallPassK', 'overall'],
  ['maxPolicyViolations', 'policy'],
  ['maxDuplicateEffects', 'dupes'],
  ['recoveryPassRate', 'recovery'],
  ['minFiresPerFaultKind', 'fires'],
];
const DEFAULTS_TABLE = [
  `  ${'level'.padEnd(18)} ${COLUMNS.map(([, h]) => h.padStart(8)).join(' ')}`,
  ...AUTONOMY_LEVELS.map(
    (l) =>
      `  ${l.padEnd(18)} ${COLUMNS.map(([key]) => String(LEVEL_DEFAULTS[l][key]).padStart(8)).join(' ')}`,
  ),
].join('\n');

export const PROMOTE_HELP = `Usage: faultline promote RESULTS --to LEVEL [options]

Judges whether a result set (the --out folder of faultline run, or its results.jsonl) is
evidence enough to promote its agent to an autonomy level. A level is judged only on the runs
made in its own mode (run the suite with --mode); runs in other modes are counted, not judged.

Levels, loosest first (and the mode each is judged on):
${AUTONOMY_LEVELS.map((l) => `  ${l.padEnd(18)} ${LEVEL_MODE[l]}`).join('\n')}

Criteria, from gates.LEVEL of the config; what it leaves out comes from the level's defaults:
  runs in the level's mode      ≥ minRuns
  outcome pass^k                ≥ outcomePassK, with k from k, averaged over the scenario and
                                  fault plan groups with k trials (run with --trials k)
  overall pass^k                ≥ overallPassK
  policy violations             ≤ maxPolicyViolations
  duplicate side effects        ≤ maxDuplicateEffects
  recovery pass rate            ≥ recoveryPassRate
  runs each fault kind fired in ≥ minFiresPerFaultKind, for every kind the runs inject and
                                  every kind the built-in library injects in the level's mode

Defaults per level (README.md says why each exists):
${DEFAULTS_TABLE}

Options:
  --to LEVEL      the level to judge (required)
  --json          print the verdict as JSON instead of a table
  --config FILE   configuration (default: faultline.config.ts, if it exists)
  -h, --help      show this help

Exit codes: 0 every criterion met, 1 one or more not met, 2 bad arguments or configuration, an
unknown level or an unreadable result set.`;

export async function promoteCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      to: { type: 'string' },
      json: { type: 'boolean', default: false },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(PROMOTE_HELP);
    return 0;
  }
  const [path, ...extra] = positionals;
  if (path === undefined || extra.length > 0)
    throw new UsageError(
      `promote takes one result set (got ${positionals.length}); see faultline promote --help`,
    );
  if (values.to === undefined)
    throw new UsageError(`--to LEVEL is required (levels: ${AUTONOMY_LEVELS.join(', ')})`);
  const level = values.to;
  if (!isLevel(level))
    throw new UsageError(`unknown level "${level}" (levels: ${AUTONOMY_LEVELS.join(', ')})`);
  const config = await loadConfig(values.config);
  const { results, file } = readResults(path);
  if (results.length === 0)
    throw new UsageError(`${file}: no runs in this result set; nothing to judge`);
  const mode = LEVEL_MODE[level];
  let verdict;
  try {
    verdict = judgeLevel(results, {
      level,
      mode,
      criteria: gateCriteria(config, level),
      // A replay runs recorded sessions, not the library's plans: only the kinds its own runs
      // inject (faults put on top of a recording) are required to have fired.
      requiredFaultKinds: mode === 'replay' ? [] : await libraryFaultKinds(mode),
    });
  } catch (error) {
    if (error instanceof PromotionError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const own = Object.values(config.gates[level] ?? {}).some((v) => v !== undefined);
  if (values.json) io.out(JSON.stringify({ results: path, ...verdict }, null, 2));
  else {
    io.out(renderVerdict(verdict, { color: io.color }));
    io.out(
      own
        ? `criteria: gates.${level} of the config, the ${level} defaults for the rest (faultline promote --help)`
        : `criteria: the ${level} defaults (faultline promote --help lists them; gates.${level} in the config sets them)`,
    );
  }
  return verdict.pass ? 0 : 1;
}

function isLevel(name: string): name is AutonomyLevel {
  return (AUTONOMY_LEVELS as readonly string[]).includes(name);
}

/**
 * Every fault kind the built-in library injects in `mode` (plans that cannot apply there left
 * out): what a level's gate asks to have seen fire, so a set that skips a kind cannot pass.
 * The hand-written library only: the τ-bench tasks' derived plans inject kinds it has too
 * (test/bin/promote.test.ts checks), and building them, and in shadow or recommend mode running
 * each fault-free, would cost seconds for nothing.
 */
async function libraryFaultKinds(mode: string): Promise<string[]> {
  const { cases } = await suiteSelection({
    globs: ['!tau-retail/*'],
    agent: 'reference',
    ...((AUTONOMY_MODES as readonly string[]).includes(mode) ? { mode: mode as AutonomyMode } : {}),
    faults: 'all',
    trials: 1,
    scenarioFiles: [],
    // Regression files are a user's own plans, not the library's.
    regressions: '',
  });
  return [...new Set(cases.flatMap((c) => c.faultPlan.faults.map((f) => f.kind)))].sort();
}
