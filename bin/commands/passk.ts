import { parseArgs } from 'node:util';
import { degradation, renderDegradation } from '../../reports/degradation.js';
import { readResults, type RunResult } from '../../reports/results.js';
import { matchesAny } from '../glob.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const PASSK_HELP = `Usage: faultline passk [RESULTS…] [options]

Prints how an agent's success holds up under each kind of fault: pass^1 and pass^k
(τ-bench's definition, C(c,k)/C(n,k) per scenario and plan, averaged) per agent and fault
kind, with the points of pass^1 each kind costs against no faults. RESULTS are result sets
(--out folders of faultline run, or their results.jsonl; default .faultline/), one per agent
or several agents in one; an agent with a model is one row block per model.

  npx faultline run 'tau-retail/*' --trials 4 --out .faultline/reference
  npx faultline run 'tau-retail/*' --trials 4 --agent no-idempotency --out .faultline/no-idempotency
  npx faultline passk .faultline/reference .faultline/no-idempotency

A run counts when it passed (outcome, policy, integrity, recovery) and ended as its plan
expects. A plan's kind is the kinds of its faults (lost-ack, crash, …; crash+timeout when it
injects two), or "no faults".

Options:
  --k N          the k of pass^k (default: the most trials any scenario and plan ran)
  --only GLOB    only these scenarios (repeatable; !GLOB leaves some out)
  --json         print the table as JSON
  -h, --help     show this help

Exit codes: 0 printed, 2 bad arguments or an unreadable result set.`;

export function passkCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      k: { type: 'string' },
      only: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(PASSK_HELP);
    return Promise.resolve(0);
  }
  let k: number | undefined;
  if (values.k !== undefined) {
    k = Number(values.k);
    if (!/^\d+$/.test(values.k) || k < 1)
      throw new UsageError(`--k ${values.k}: expected a whole number ≥ 1`);
  }
  const sets = positionals.length === 0 ? ['.faultline'] : positionals;
  const results: RunResult[] = [];
  for (const set of sets) {
    const read = readResults(set);
    if (read.results.length === 0) throw new UsageError(`${read.file}: no runs in this result set`);
    if (read.truncated)
      io.err(
        `faultline passk: ${read.file} ends in a partial line (an interrupted run); it is left out`,
      );
    results.push(...read.results);
  }
  const only = values.only ?? [];
  const chosen = results.filter((r) => matchesAny(r.scenarioId, only));
  if (chosen.length === 0)
    throw new UsageError(`--only ${only.join(' ')}: no run of ${sets.join(', ')} matches`);
  const table = degradation(chosen, k === undefined ? {} : { k });
  io.out(
    values.json ? JSON.stringify(table, null, 2) : renderDegradation(table, { color: io.color }),
  );
  return Promise.resolve(0);
}
