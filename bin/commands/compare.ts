import { parseArgs } from 'node:util';
import { CompareError, compareResults, renderComparison } from '../../reports/compare.js';
import { readResults } from '../../reports/results.js';
import { loadConfig } from '../config.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const COMPARE_HELP = `Usage: faultline compare A B [options]

Compares result set B against baseline A (each a result set folder, i.e. the --out of
faultline run, or its results.jsonl). Runs are paired by scenario, fault plan, seed and trial —
not by agent, model, prompt or mode, so two versions of any of them can be compared on the same
cases (run both sides with the same --seed and --trials).

Prints what differs between A and B (agent and version, model, prompt hash, temperature, model
seed, contract and policy versions, mode); over the paired runs, the pass rate of each dimension
and overall in A and B, the difference, the discordant pairs b (A passed, B failed) and c (A
failed, B passed) and the exact McNemar p-value of each; pass^k on both sides; the gate's
reasoning for every core dimension that dropped; every pair that regressed (passed in A, failed
in B) or was fixed, with the failing dimensions, finding codes and the commands that replay its
runs of A and B; and the runs either side has no partner for.

B regresses when a core dimension (outcome, policy, integrity, recovery) or the overall pass
drops by MORE than the threshold AND the drop is significant (McNemar p ≤ alpha): a drop on
too few runs to tell from chance is printed, with its p, and does not gate.

Options:
  --threshold X   the drop in pass rate allowed on the overall pass and each core dimension,
                  a fraction 0..1 (default: compare.maxRegression of the config, else 0)
  --alpha A       the significance level a drop must reach to gate, in (0, 1]
                  (default: compare.alpha of the config, else 0.05; 1 gates on any drop)
  --k K           the k of pass^k (default: the fewest trials any scenario and plan has,
                  i.e. the --trials both sets were run with)
  --json          print the comparison as JSON instead of tables
  --config FILE   configuration (default: faultline.config.ts, if it exists)
  -h, --help      show this help

Exit codes: 0 B did not regress, 1 it did, 2 bad arguments or configuration, an unreadable
result set, or two sets that share no runs.`;

export async function compareCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      threshold: { type: 'string' },
      alpha: { type: 'string' },
      k: { type: 'string' },
      json: { type: 'boolean', default: false },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(COMPARE_HELP);
    return 0;
  }
  const [pathA, pathB, ...extra] = positionals;
  if (pathA === undefined || pathB === undefined || extra.length > 0)
    throw new UsageError(
      `compare takes two result sets, A and B (got ${positionals.length}); see faultline compare --help`,
    );
  let threshold: number | undefined;
  if (values.threshold !== undefined) {
    threshold = Number(values.threshold);
    if (values.threshold.trim() === '' || !(threshold >= 0 && threshold <= 1))
      throw new UsageError(
        `--threshold must be a fraction between 0 and 1, e.g. 0.05 (got "${values.threshold}")`,
      );
  }
  let alpha: number | undefined;
  if (values.alpha !== undefined) {
    alpha = Number(values.alpha);
    if (values.alpha.trim() === '' || !(alpha > 0 && alpha <= 1))
      throw new UsageError(
        `--alpha must be a significance level above 0 and at most 1, e.g. 0.05 (got "${values.alpha}")`,
      );
  }
  let k: number | undefined;
  if (values.k !== undefined) {
    if (!/^[1-9]\d*$/.test(values.k))
      throw new UsageError(`--k must be a whole number ≥ 1 (got "${values.k}")`);
    k = Number(values.k);
  }
  const config = await loadConfig(values.config);
  const a = readResults(pathA).results;
  const b = readResults(pathB).results;
  let comparison;
  try {
    comparison = compareResults(a, b, {
      maxRegression: threshold ?? config.compare.maxRegression,
      alpha: alpha ?? config.compare.alpha,
      ...(k === undefined ? {} : { k }),
    });
  } catch (error) {
    if (error instanceof CompareError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  if (values.json)
    io.out(JSON.stringify({ sources: { a: pathA, b: pathB }, ...comparison }, null, 2));
  else io.out(renderComparison(comparison, { color: io.color, labels: { a: pathA, b: pathB } }));
  return comparison.regressed ? 1 : 0;
}
