import { parseArgs } from 'node:util';
import { judgeLevel, PromotionError, renderVerdict } from '../../reports/promote.js';
import { readResults } from '../../reports/results.js';
import {
  AUTONOMY_LEVELS,
  configSchema,
  gateCriteria,
  LEVEL_MODE,
  loadConfig,
  type AutonomyLevel,
} from '../config.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

/** The criteria of a level the config leaves out. */
const DEFAULTS = gateCriteria(configSchema.parse({}), 'supervised');

export const PROMOTE_HELP = `Usage: faultline promote RESULTS --to LEVEL [options]

Judges whether a result set (the --out folder of faultline run, or its results.jsonl) is
evidence enough to promote its agent to an autonomy level. A level is judged only on the runs
made in its own mode (run the suite with --mode); runs in other modes are counted, not judged.

Levels, loosest first (and the mode each is judged on):
${AUTONOMY_LEVELS.map((l) => `  ${l.padEnd(18)} ${LEVEL_MODE[l]}`).join('\n')}

Criteria, from gates.LEVEL of the config (defaults in parentheses):
  runs in the level's mode      ≥ minRuns (${DEFAULTS.minRuns})
  outcome pass^k                ≥ outcomePassK (${DEFAULTS.outcomePassK}), k from k (${DEFAULTS.k}), averaged over the
                                  scenario and fault plan groups with k trials
  overall pass^k                ≥ overallPassK (${DEFAULTS.overallPassK})
  policy violations             ≤ maxPolicyViolations (${DEFAULTS.maxPolicyViolations})
  duplicate side effects        ≤ maxDuplicateEffects (${DEFAULTS.maxDuplicateEffects})
  recovery pass rate            ≥ recoveryPassRate (${DEFAULTS.recoveryPassRate})
  runs each injected fault      ≥ minFiresPerFaultKind (${DEFAULTS.minFiresPerFaultKind}); a suite injecting no fault
  kind fired in                   fails any minimum above 0

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
  const results = readResults(path).results;
  let verdict;
  try {
    verdict = judgeLevel(results, {
      level,
      mode: LEVEL_MODE[level],
      criteria: gateCriteria(config, level),
    });
  } catch (error) {
    if (error instanceof PromotionError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  if (values.json) io.out(JSON.stringify({ results: path, ...verdict }, null, 2));
  else io.out(renderVerdict(verdict, { color: io.color }));
  return verdict.pass ? 0 : 1;
}

function isLevel(name: string): name is AutonomyLevel {
  return (AUTONOMY_LEVELS as readonly string[]).includes(name);
}
