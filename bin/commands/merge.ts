import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readResults, ResultsWriter, type RunResult } from '../../reports/results.js';
import { cpSync, existsSync } from 'node:fs';
import { FolderLock } from '../folder-lock.js';
import type { Io } from '../io.js';
import {
  commitPendingSet,
  openPendingSet,
  readSetDefinition,
  type SetDefinition,
} from '../pending-set.js';
import { checkOutputFolder } from '../output-folder.js';
import { UsageError } from '../usage-error.js';

export const MERGE_HELP = `Usage: faultline merge DIR… --out DIR

Combines result sets (the --out folders of sharded runs) into one: every run once, in suite
order, with its trajectory. Merged shards equal the unsharded run.

Options:
  --out DIR    where the merged result set goes (required; must not be one of the inputs)
  -h, --help   show this help

Exit codes: 0 merged, 2 bad arguments, unreadable results, or a run found in two sets.`;

export function mergeCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.out(MERGE_HELP);
    return Promise.resolve(0);
  }
  if (positionals.length === 0) throw new UsageError('name the result sets to merge');
  if (values.out === undefined) throw new UsageError('--out DIR is required');
  const out = values.out;
  if (positionals.includes(out)) throw new UsageError(`--out ${out} is one of the inputs`);
  checkOutputFolder(out, '--out');
  // Read everything first: a bad input stops the merge before anything is written.
  const sets = positionals.map((dir) => ({ dir, results: readResults(dir).results }));
  const empty = sets.filter((s) => s.results.length === 0).map((s) => s.dir);
  if (empty.length > 0)
    throw new UsageError(
      `${empty.join(', ')}: no runs in ${empty.length === 1 ? 'this result set' : 'these result sets'}; nothing to merge (a run that was stopped before its first case? run it again)`,
    );
  const owner = new Map<string, string>();
  for (const { dir, results } of sets) {
    for (const r of results) {
      const other = owner.get(r.id);
      if (other !== undefined)
        throw new UsageError(`run ${r.id} is in both ${other} and ${dir}: not disjoint shards`);
      owner.set(r.id, dir);
    }
  }
  const merged: { dir: string; result: RunResult }[] = sets
    .flatMap(({ dir, results }) => results.map((result) => ({ dir, result })))
    .sort((a, b) => a.result.index - b.result.index);
  // Like a run: under the folder's lock, into a pending set that replaces the old one whole.
  const lock = FolderLock.take(out, 'merge');
  try {
    const pending = openPendingSet(out, mergedDefinition(positionals), false);
    const writer = new ResultsWriter(pending.dir, { fresh: false });
    try {
      for (const { dir, result } of merged) {
        const from = join(dir, result.trajectoryFile);
        if (existsSync(from)) cpSync(from, join(pending.dir, result.trajectoryFile));
        writer.appendRecord(result);
      }
    } finally {
      writer.close();
    }
    commitPendingSet(out);
  } finally {
    lock.release();
  }
  io.out(
    `merged ${merged.length} run(s) from ${sets.length} result set(s) into ${join(out, 'results.jsonl')}`,
  );
  return Promise.resolve(0);
}

/**
 * What the merged set was made with: the shards' common options, unsharded, so the merged set
 * can be resumed like the unsharded run; none when the inputs disagree or record none.
 */
function mergedDefinition(dirs: readonly string[]): SetDefinition | undefined {
  const made = dirs.map((dir) => readSetDefinition(dir));
  const first = made[0];
  if (!first) return undefined;
  const unsharded = (d: SetDefinition | undefined): string =>
    d ? JSON.stringify({ ...d, shard: null }) : '';
  return made.every((d) => unsharded(d) === unsharded(first))
    ? { ...first, shard: null }
    : undefined;
}
