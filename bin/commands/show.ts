import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { readResults, type RunResult } from '../../reports/results.js';
import { renderShow, TrajectoryShapeError } from '../../reports/show.js';
import type { Io } from '../io.js';
import { UsageError } from '../usage-error.js';

export const SHOW_HELP = `Usage: faultline show RUN [options]

Prints one run of a result set as a timeline in virtual time: state transitions, tool calls
(arguments, outcome, the fault injected), faults fired, crashes and restarts, operator
actions and the effects the world applied; then each dimension's findings with the entries
they cite (marked ◀ [n] in the timeline).

Arguments:
  RUN              a run id as in results.jsonl, scenario/plan or scenario/plan/trial
                   (e.g. refunds/partial-refund/message-ack-lost/0), or any part of an id
                   that names one run

Options:
  --out DIR        the result set (default: .faultline/)
  --events         every agent event, not only state transitions and cited events
  --transcript     then the run's model transcript: per model call its number, model,
                   tokens, cost and latency (and fault or error), the messages it added to
                   the request and the reply; texts over 600 characters are cut with a note
  -h, --help       show this help

Exit codes: 0 shown, 2 bad arguments (no such run, or more than one matches).`;

export function showCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: 'string', default: '.faultline' },
      events: { type: 'boolean', default: false },
      transcript: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(SHOW_HELP);
    return Promise.resolve(0);
  }
  const [query, ...extra] = positionals;
  if (query === undefined)
    throw new UsageError('which run? give a run id, scenario/plan[/trial], or part of an id');
  if (extra.length > 0)
    throw new UsageError(`one run at a time (got ${positionals.length}: ${positionals.join(' ')})`);
  if (values.out.trim() === '')
    throw new UsageError('--out must name a result set folder (got "")');
  const { results, file } = readResults(values.out);
  const found = findRun(results, query);
  switch (found.kind) {
    case 'none':
      throw new UsageError(
        `no run matches "${query}" in ${file} (runs: ${sample(results.map(shortName))})`,
      );
    case 'ambiguous':
      throw new UsageError(
        `"${query}" matches ${found.runs.length} runs: ${sample(names(found.runs))} (give more of it)`,
      );
    case 'found':
      break;
  }
  const { path, trajectory } = readTrajectory(values.out, found.run);
  let text: string;
  try {
    text = renderShow(found.run, trajectory, {
      color: io.color,
      events: values.events,
      transcript: values.transcript,
    });
  } catch (error) {
    if (error instanceof TrajectoryShapeError) throw new UsageError(`${path}: ${error.message}`);
    throw error;
  }
  io.out(text);
  return Promise.resolve(0);
}

/** What a RUN argument names: exactly one run, several, or none. */
export type RunMatch =
  | { readonly kind: 'found'; readonly run: RunResult }
  | { readonly kind: 'ambiguous'; readonly runs: readonly RunResult[] }
  | { readonly kind: 'none' };

/**
 * The run a RUN argument names, most exact first: a whole run id; `scenario/plan/trial`;
 * `scenario/plan` (when it ran one trial); then any run whose id or `scenario/plan/trial`
 * contains the text. The first rule that matches anything decides.
 */
export function findRun(results: readonly RunResult[], query: string): RunMatch {
  const rules: ((r: RunResult) => boolean)[] = [
    (r) => r.id === query,
    (r) => shortName(r) === query,
    (r) => `${r.scenarioId}/${r.faultPlanId}` === query,
    (r) => r.id.includes(query) || shortName(r).includes(query),
  ];
  for (const rule of rules) {
    const runs = results.filter(rule);
    const [only] = runs;
    if (only !== undefined && runs.length === 1) return { kind: 'found', run: only };
    if (runs.length > 1) return { kind: 'ambiguous', runs };
  }
  return { kind: 'none' };
}

/** `refunds/partial-refund/message-ack-lost/0`. */
function shortName(r: RunResult): string {
  return `${r.scenarioId}/${r.faultPlanId}/${r.trial}`;
}

/** Short names, or whole ids when short names do not tell the runs apart. */
function names(runs: readonly RunResult[]): string[] {
  const short = runs.map(shortName);
  return new Set(short).size === short.length ? short : runs.map((r) => r.id);
}

function sample(items: readonly string[]): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, 4).join(', ');
  return items.length > 4 ? `${shown}, … ${items.length - 4} more` : shown;
}

/** The run's trajectory file, which must lie inside the result set's folder, parsed. */
function readTrajectory(dir: string, run: RunResult): { path: string; trajectory: unknown } {
  const path = join(dir, run.trajectoryFile);
  const inside = relative(dir, path);
  if (inside.startsWith('..') || isAbsolute(inside))
    throw new UsageError(
      `run ${run.id}: trajectory file ${run.trajectoryFile} lies outside ${dir}; the result set is not faultline's`,
    );
  if (!existsSync(path))
    throw new UsageError(`${path}: the trajectory of run ${run.id} is missing`);
  try {
    return { path, trajectory: JSON.parse(readFileSync(path, 'utf8')) as unknown };
  } catch {
    throw new UsageError(`${path}: not JSON — the trajectory of run ${run.id} is corrupt`);
  }
}
