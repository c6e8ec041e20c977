import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  PENDING_DIR,
  readResults,
  ResultsError,
  RESULTS_FILE,
  TRAJECTORIES_DIR,
  writeFileAtomic,
  type RunResult,
} from '../reports/results.js';
import { LOCK_FILE, processAlive } from './folder-lock.js';
import type { SuiteOptions } from './suite.js';
import { UsageError } from './usage-error.js';

/*
 * A result set folder holds one committed set (`results.jsonl`, `trajectories/`, `stores/`,
 * `set.json`) and at most one set being made, in `.pending/`. A run writes only there, each
 * record the moment its run ends, so a killed run keeps every finished run for `--resume`;
 * the committed set is replaced only when the new one is complete, so a bad or killed run never
 * costs the previous results.
 */

/** The options that made the set, beside its results. */
export const SET_FILE = 'set.json';
export const STORES_DIR = 'stores';
/** Present in `.pending/` once its set is complete and being moved into place. */
const COMMIT_MARK = 'commit';

/** The options that define a result set: which cases it holds, made by which agent. */
export const setDefinitionSchema = z.strictObject({
  agent: z.string(),
  /** The agent's module (absolute), when it comes from one; sets made before: unset. */
  agentModule: z.string().nullable().default(null),
  /** The agent's version (its own, or its module's hash); sets made before: unset. */
  agentVersion: z.string().nullable().default(null),
  mode: z.string().nullable(),
  faults: z.string(),
  plan: z.string().nullable(),
  trials: z.number().int(),
  seed: z.number().int().nullable(),
  globs: z.array(z.string()),
  shard: z.string().nullable(),
  scenarios: z.array(z.string()),
  regressions: z.string(),
  /** `--model` (PROVIDER:MODEL), the prompt's hash, temperature and seed; sets made before: unset. */
  model: z.string().nullable().default(null),
  promptHash: z.string().nullable().default(null),
  temperature: z.number().nullable().default(null),
  modelSeed: z.number().int().nullable().default(null),
  /** The recordings folder a replay set was made from (absolute); other sets: unset. */
  replay: z.string().nullable().default(null),
});
export type SetDefinition = z.infer<typeof setDefinitionSchema>;

const setFileSchema = z.strictObject({
  format: z.literal('faultline-set'),
  version: z.literal(1),
  options: setDefinitionSchema,
});

/** The definition of the set a suite makes (paths resolved: from another folder, one is another file). */
export function setDefinition(
  suite: SuiteOptions,
  shard?: string,
  agent?: { readonly module?: string; readonly version: string },
): SetDefinition {
  return {
    agent: suite.agent,
    agentModule: agent?.module ?? null,
    agentVersion: agent?.version ?? null,
    mode: suite.mode ?? null,
    faults: suite.faults,
    plan: suite.plan ?? null,
    trials: suite.trials,
    seed: suite.seed ?? null,
    globs: [...suite.globs],
    shard: shard ?? null,
    scenarios: suite.scenarioFiles.map((f) => resolve(f)),
    regressions: resolve(suite.regressions),
    model: suite.model?.spec ?? null,
    promptHash: suite.model?.prompt?.hash ?? null,
    temperature: suite.model?.temperature ?? null,
    modelSeed: suite.model?.seed ?? null,
    replay: suite.replay ?? null,
  };
}

/** How each option is spelled on the command line, for saying what differs. */
const FLAGS: Record<keyof SetDefinition, string> = {
  agent: '--agent',
  agentModule: 'agent module',
  agentVersion: 'agent version',
  mode: '--mode',
  faults: '--faults',
  plan: '--plan',
  trials: '--trials',
  seed: '--seed',
  globs: 'scenario globs',
  shard: '--shard',
  scenarios: '--scenarios',
  regressions: '--regressions',
  model: '--model',
  promptHash: '--prompt (hash)',
  temperature: '--temperature',
  modelSeed: '--model-seed',
  replay: '--replay',
};

function shown(value: SetDefinition[keyof SetDefinition]): string {
  if (value === null) return 'unset';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.join(' ');
  return String(value);
}

/** Each option whose value differs, as `--seed 7 (this resume: 42)`. */
export function definitionDifferences(made: SetDefinition, given: SetDefinition): string[] {
  return (Object.keys(FLAGS) as (keyof SetDefinition)[])
    .filter((key) => JSON.stringify(made[key]) !== JSON.stringify(given[key]))
    .map((key) => `${FLAGS[key]} ${shown(made[key])} (this resume: ${shown(given[key])})`);
}

/** The definition a set folder records; undefined when it records none. */
export function readSetDefinition(dir: string): SetDefinition | undefined {
  const file = join(dir, SET_FILE);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    raw = undefined;
  }
  const result = setFileSchema.safeParse(raw);
  if (!result.success)
    throw new ResultsError(
      `${file}: not a faultline set definition (format faultline-set, version 1)`,
    );
  return result.data.options;
}

function writeSetDefinition(dir: string, definition: SetDefinition): void {
  writeFileAtomic(
    join(dir, SET_FILE),
    `${JSON.stringify({ format: 'faultline-set', version: 1, options: definition }, null, 2)}\n`,
  );
}

/** A finished run `--resume` does not keep, and why. */
export interface RemadeRun {
  run: RunResult;
  /** What is wrong with its files, in a few words (`trajectory empty`, `store cut short`). */
  problem: string;
}

/**
 * Whether a finished run's files in the set folder `dir` are whole enough to keep: what is
 * wrong with them, or undefined (see `keptRunProblem`).
 */
export type KeptRunCheck = (run: RunResult, dir: string) => string | undefined;

/** A set being made: where to write, and the runs it already holds. */
export interface PendingSet {
  /** The `.pending/` folder: results, trajectories and run stores go here until commit. */
  dir: string;
  /** Runs already finished (a resumed set's). */
  kept: RunResult[];
  /** Finished runs a resume did not keep, their files failing the check: to make again. */
  remade: RemadeRun[];
  /** Runs of an unfinished set this fresh run threw away (it replaces it). */
  discarded: number;
}

/**
 * Opens the set a run writes into; call it holding the folder's lock. A fresh run starts an
 * empty `.pending/` (dropping an unfinished one); `resume` continues the unfinished one, or
 * else the committed set, and refuses either when it was made with other options. A resume
 * keeps each finished run that passes `check` (its files whole: a power loss can empty or cut
 * them, as nothing is synced per run); the others are dropped from the set, to be made again.
 */
export function openPendingSet(
  out: string,
  /** `replay` may be left out: a set made from no recordings. */
  given: (Omit<SetDefinition, 'replay'> & { replay?: string | null }) | undefined,
  resume: boolean,
  check?: KeptRunCheck,
): PendingSet {
  const definition: SetDefinition | undefined =
    given === undefined ? undefined : { ...given, replay: given.replay ?? null };
  recoverSetFolder(out);
  const dir = join(out, PENDING_DIR);
  const unfinished = existsSync(join(dir, RESULTS_FILE));
  if (resume) {
    const from = unfinished ? dir : existsSync(join(out, RESULTS_FILE)) ? out : undefined;
    if (from !== undefined) {
      const made = readSetDefinition(from);
      if (!made)
        throw new UsageError(
          `--resume: ${out} records no options that made its set (no ${SET_FILE}: made by merge or an older faultline); run without --resume to make a new set`,
        );
      const differences = definition ? definitionDifferences(made, definition) : [];
      if (differences.length > 0)
        throw new UsageError(
          `--resume: the set in ${out} was made with other options: ${differences.join(', ')}; resume with the same options, or run without --resume to replace it`,
        );
      const kept: RunResult[] = [];
      const remade: RemadeRun[] = [];
      for (const run of readResults(from, { allowTruncatedTail: true }).results) {
        const problem = check?.(run, from);
        if (problem === undefined) kept.push(run);
        else remade.push({ run, problem });
      }
      if (from === out) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
      }
      // Rewritten whole: drops a last record a kill cut short and the runs to make again, and
      // copies a committed set's. A remade run's files are replaced when it is made (its
      // trajectory renamed over, its store removed first), or at the commit (a committed set's).
      writeFileAtomic(join(dir, RESULTS_FILE), kept.map((r) => `${JSON.stringify(r)}\n`).join(''));
      if (definition) writeSetDefinition(dir, definition);
      return { dir, kept, remade, discarded: 0 };
    }
  }
  const discarded = unfinished ? readResults(dir, { allowTruncatedTail: true }).results.length : 0;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, TRAJECTORIES_DIR), { recursive: true });
  writeFileAtomic(join(dir, RESULTS_FILE), '');
  if (definition) writeSetDefinition(dir, definition);
  return { dir, kept: [], remade: [], discarded };
}

/**
 * Makes the pending set the folder's set: its trajectories and stores move in, then its
 * `results.jsonl` replaces the old one (the moment the new set is committed), then its
 * `set.json`; trajectories of runs no longer in the set go. A commit cut short by a kill is
 * finished by the next writer (see {@link recoverSetFolder}).
 */
export function commitPendingSet(out: string): void {
  writeFileAtomic(join(out, PENDING_DIR, COMMIT_MARK), '');
  finishCommit(out);
}

function finishCommit(out: string): void {
  const dir = join(out, PENDING_DIR);
  moveAll(join(dir, TRAJECTORIES_DIR), join(out, TRAJECTORIES_DIR));
  moveStores(join(dir, STORES_DIR), join(out, STORES_DIR));
  // The definition first: the results' rename is the commit, and a set may record none.
  const results = existsSync(join(dir, RESULTS_FILE));
  if (existsSync(join(dir, SET_FILE))) renameSync(join(dir, SET_FILE), join(out, SET_FILE));
  else if (results) rmSync(join(out, SET_FILE), { force: true });
  if (results) renameSync(join(dir, RESULTS_FILE), join(out, RESULTS_FILE));
  const inSet = new Set(
    readResults(out, { allowTruncatedTail: true }).results.map((r) => r.trajectoryFile),
  );
  const trajectories = join(out, TRAJECTORIES_DIR);
  if (existsSync(trajectories)) {
    for (const name of readdirSync(trajectories)) {
      if (!inSet.has(`${TRAJECTORIES_DIR}/${name}`))
        rmSync(join(trajectories, name), { force: true });
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Puts a result set folder in order before anything writes there (holding its lock): finishes
 * a commit a kill interrupted, and removes the temp files (`*.<pid>.tmp`) a killed writer left.
 */
export function recoverSetFolder(out: string): void {
  const dir = join(out, PENDING_DIR);
  if (existsSync(join(dir, COMMIT_MARK))) finishCommit(out);
  for (const folder of [out, join(out, TRAJECTORIES_DIR), dir, join(dir, TRAJECTORIES_DIR)]) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      const pid = /\.(\d+)\.tmp$/.exec(name)?.[1];
      if (pid === undefined || name.startsWith(LOCK_FILE)) continue;
      // Another live writer's temp file (a report being written) is left alone.
      if (Number(pid) !== process.pid && processAlive(Number(pid))) continue;
      rmSync(join(folder, name), { force: true });
    }
  }
}

function moveAll(from: string, to: string): void {
  if (!existsSync(from)) return;
  // Into a set folder that has none yet (a fresh --out): the folder itself, one rename.
  if (!existsSync(to)) {
    renameSync(from, to);
    return;
  }
  for (const name of readdirSync(from)) renameSync(join(from, name), join(to, name));
}

/**
 * Moves run stores (SQLite files): an old store's `-wal` and `-shm` go with it, or SQLite
 * would read them as the new store's.
 */
function moveStores(from: string, to: string): void {
  if (!existsSync(from)) return;
  const names = readdirSync(from);
  // Into a set folder that has no stores yet, when the folder holds nothing but stores and
  // their own `-wal` and `-shm` files (nothing a killed writer left): the folder, one rename.
  const stores = new Set(names.filter((n) => n.endsWith('.db')));
  const onlyStores = names.every(
    (n) => stores.has(n) || (/\.db-(wal|shm)$/.test(n) && stores.has(n.slice(0, -4))),
  );
  if (!existsSync(to) && onlyStores) {
    renameSync(from, to);
    return;
  }
  mkdirSync(to, { recursive: true });
  for (const name of names) {
    if (!name.endsWith('.db')) continue;
    for (const suffix of ['-wal', '-shm']) {
      rmSync(join(to, name + suffix), { force: true });
      if (existsSync(join(from, name + suffix)))
        renameSync(join(from, name + suffix), join(to, name + suffix));
    }
    renameSync(join(from, name), join(to, name));
  }
}
