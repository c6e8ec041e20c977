import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../reports/results.js';
import { storeFileProblem } from '../runtime/store-file-check.js';
import { storeFileName } from '../scenarios/store-file.js';
import { STORES_DIR, type RemadeRun } from './pending-set.js';

/*
 * A result set is not synced to disk per run: a killed process loses nothing finished, but a
 * power loss can leave a finished run's record on disk while its trajectory or store file is
 * empty or cut (the rename reached the disk, the bytes did not). `--resume` checks each run it
 * would keep, and a run whose files fail is made again rather than kept.
 */

/** How a kept run's store file is found, for an agent whose store is a run store. */
export interface KeptStore {
  /** The store file's key when it is not the run id (a replayed trial's, see `storeKey`). */
  key?: string;
}

/**
 * What is wrong with a finished run's files in the set folder `dir`; undefined when they are
 * whole. The trajectory must be there, parse, and be this record's run (scenario, plan, trial,
 * seed). With `store` (the agent keeps a run store), the store file named by the trajectory's
 * run id must be a whole store (see {@link storeFileProblem}). The trajectory is parsed as JSON
 * and its identity read, not checked against its whole schema: a power loss empties or cuts a
 * file, it does not write another valid one, and the schema check would cost more than the
 * parse.
 */
export function keptRunProblem(
  dir: string,
  run: RunResult,
  store: KeptStore | undefined,
): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, run.trajectoryFile), 'utf8');
  } catch {
    return 'trajectory missing';
  }
  if (text === '') return 'trajectory empty';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'trajectory cut short';
  }
  if (parsed === null || typeof parsed !== 'object') return 'trajectory not a faultline trajectory';
  const trajectory = parsed as Partial<
    Record<'scenarioId' | 'faultPlanId' | 'trial' | 'seed' | 'runId', unknown>
  >;
  const { scenarioId, faultPlanId, trial, seed, runId } = trajectory;
  if (
    scenarioId !== run.scenarioId ||
    faultPlanId !== run.faultPlanId ||
    trial !== run.trial ||
    seed !== run.seed
  )
    return `trajectory of another run: ${String(scenarioId)} / ${String(faultPlanId)}${typeof trial === 'number' && trial > 0 ? ` #${String(trial)}` : ''}`;
  if (store === undefined) return undefined;
  if (typeof runId !== 'string') return 'trajectory not a faultline trajectory';
  return storeFileProblem(join(dir, STORES_DIR, storeFileName(store.key ?? runId)));
}

/** The runs named for a line: `refunds/x / none (trajectory empty), …`. */
export function remadeRunsLine(remade: readonly RemadeRun[]): string {
  const named = remade.map(
    ({ run, problem }) =>
      `${run.scenarioId} / ${run.faultPlanId}${run.trial > 0 ? ` #${String(run.trial)}` : ''} (${problem})`,
  );
  return `resume: ${String(remade.length)} finished run(s) had unreadable files (power loss?) and are made again: ${named.join(', ')}`;
}
