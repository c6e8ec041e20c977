import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { DIMENSIONS } from '../graders/grade.js';

/**
 * The results of a suite: one record per finished run, appended to `results.jsonl` under the
 * output folder the moment the run finishes, so a suite killed halfway loses no finished run.
 * Records are plain JSON, versioned, and carry everything reporters need; each run's full
 * trajectory sits beside them in `trajectories/<file>.json` for `show` and the HTML report.
 */
export const RESULT_FORMAT = 'faultline-run-result';
export const RESULT_VERSION = 1;
export const RESULTS_FILE = 'results.jsonl';
export const TRAJECTORIES_DIR = 'trajectories';
/** Where a set being made is written until it is complete (see bin/pending-set.ts). */
export const PENDING_DIR = '.pending';

const findingSchema = z.object({
  code: z.string(),
  message: z.string(),
  refs: z.array(z.record(z.string(), z.unknown())),
});

const gradeSchema = z.object({
  dimension: z.enum(DIMENSIONS),
  pass: z.boolean(),
  score: z.number(),
  findings: z.array(findingSchema),
  figures: z.record(z.string(), z.number()),
  whiteBoxSkipped: z.boolean(),
  /** Not judged for this run, and why (absent: judged). */
  notApplicable: z.string().optional(),
});

/** One finished run: who ran what, how it ended, its grades and how to replay it. */
const runRecordSchema = z.object({
  format: z.literal(RESULT_FORMAT),
  version: z.literal(RESULT_VERSION),
  /** Unique within a result set: agent, mode, scenario, fault plan and trial. */
  id: z.string(),
  /** Position in the suite's case order: reports sort by it, so worker order never shows. */
  index: z.number().int().nonnegative(),
  /** The agent's name. */
  agent: z.string(),
  /**
   * The agent's own `version`, else a short hash of its module's bytes (the zoo's agents:
   * faultline's version), so `compare` can say what changed. Records made before it: unknown.
   */
  agentVersion: z.string().default('unknown'),
  /** The model behind the agent: id, prompt hash, temperature, seed (absent: none). */
  model: z
    .object({
      id: z.string(),
      promptHash: z.string().nullable(),
      temperature: z.number().nullable(),
      seed: z.number().nullable(),
    })
    .optional(),
  /**
   * The model cassettes behind the run: the folder it recorded its model replies to
   * (`--record-model`) or replayed them from (`--replay-model`), so a comparison can say how to
   * re-run it offline (absent: neither).
   */
  modelCassettes: z.object({ dir: z.string(), mode: z.enum(['record', 'replay']) }).optional(),
  /** The version of the execution contract the run was given (absent: a record made before it). */
  contractVersion: z.string().optional(),
  /**
   * The policy gate's version as the agent's own records report it; null when the agent reports
   * none (a black-box agent: the graders hold it to the contract), absent in older records.
   */
  policyVersion: z.string().nullable().optional(),
  /** The autonomy mode the run was made in (the contract's own, or `--mode`). */
  mode: z.string(),
  scenarioId: z.string(),
  title: z.string(),
  world: z.string(),
  workflowClass: z.string(),
  tier: z.enum(['low', 'medium', 'high']),
  faultPlanId: z.string(),
  /** Kinds of the faults the plan injects (empty for the fault-free run). */
  faultKinds: z.array(z.string()),
  /** Kinds of the faults that actually fired. */
  faultsFired: z.array(z.string()),
  /**
   * Faults of the plan that cannot reach this agent (model faults without a planner, runtime
   * crash probes without probes): never fired, never a failure (absent: none).
   */
  faultsNotApplicable: z
    .array(
      z.object({ index: z.number().int().nonnegative(), kind: z.string(), reason: z.string() }),
    )
    .optional(),
  trial: z.number().int().nonnegative(),
  seed: z.number().int(),
  state: z.string(),
  stopReason: z.string().nullable(),
  detail: z.string().nullable(),
  /** Outcome, policy, integrity and recovery all pass. */
  pass: z.boolean(),
  grades: z.object(Object.fromEntries(DIMENSIONS.map((d) => [d, gradeSchema]))),
  /** What the expected-outcome check said differed (empty when the run ended as expected). */
  mismatches: z.array(z.string()),
  figures: z.object({
    virtualMs: z.number(),
    wallMs: z.number(),
    calls: z.number().int(),
    okCalls: z.number().int(),
    writesConfirmed: z.number().int(),
    effects: z.number().int(),
    retries: z.number().int(),
    crashes: z.number().int(),
    evidenceRequired: z.number().int(),
    evidenceLinked: z.number().int(),
    /** Model usage as the provider reported it (0 for runs without a model). */
    inputTokens: z.number().int().default(0),
    outputTokens: z.number().int().default(0),
    modelCalls: z.number().int().default(0),
    /** USD under the model's prices (0 when unpriced). */
    costUsd: z.number().default(0),
    /** Summed provider latency of the model calls, in ms. */
    modelLatencyMs: z.number().default(0),
  }),
  /** Kinds of the operator log entries that were a person stepping in. */
  interventions: z.array(z.string()),
  /** The command that reproduces this run. */
  replay: z.string(),
  /** The trajectory's file, relative to the result set's folder. */
  trajectoryFile: z.string(),
});
/**
 * A run record as read: `agent: { name, version }` (as a record written by hand or by another
 * tool may spell it) is read as the name and `agentVersion`.
 */
export const runResultSchema = z.preprocess((raw) => {
  if (raw === null || typeof raw !== 'object' || !('agent' in raw)) return raw;
  const { agent } = raw;
  if (agent === null || typeof agent !== 'object') return raw;
  const { name, version } = agent as { name?: unknown; version?: unknown };
  return { ...raw, agent: name, agentVersion: version };
}, runRecordSchema);
export type RunResult = z.infer<typeof runRecordSchema>;

/** A problem with a results file: names the file and where, in one line. */
export class ResultsError extends Error {
  override readonly name = 'ResultsError';
}

/**
 * Reads a result set: `dir/results.jsonl` (or a `.jsonl` file given directly). Every line must
 * be a run record of this format version. A last line cut short by a kill is reported as
 * truncated (`faultline run --resume` repairs it); with `allowTruncatedTail` it is skipped.
 */
export function readResults(
  path: string,
  options: { allowTruncatedTail?: boolean } = {},
): { results: RunResult[]; truncated: boolean; file: string } {
  const file = path.endsWith('.jsonl') ? path : join(path, RESULTS_FILE);
  if (!existsSync(file)) {
    if (!path.endsWith('.jsonl') && existsSync(join(path, PENDING_DIR, RESULTS_FILE)))
      throw new ResultsError(
        `${file}: no finished set here yet; an unfinished one is in ${join(path, PENDING_DIR)} (faultline run --resume --out ${path} finishes it)`,
      );
    throw new ResultsError(`${file}: no results here (run faultline run --out ${path} first)`);
  }
  if (!statSync(file).isFile())
    throw new ResultsError(`${file}: is a folder, expected a results file`);
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const complete = text.endsWith('\n') || text === '';
  const results: RunResult[] = [];
  const seen = new Set<string>();
  let truncated = false;
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    const last = i === lines.length - 1 && !complete;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      if (last) {
        if (options.allowTruncatedTail) {
          truncated = true;
          continue;
        }
        throw new ResultsError(
          `${file}:${i + 1}: truncated (the suite was killed mid-write; faultline run --resume repairs it)`,
        );
      }
      throw new ResultsError(`${file}:${i + 1}: not JSON — the results file is corrupt`);
    }
    const header = raw as { format?: unknown; version?: unknown };
    if (header.format !== RESULT_FORMAT)
      throw new ResultsError(
        `${file}:${i + 1}: not a faultline run record (format ${JSON.stringify(header.format)})`,
      );
    if (header.version !== RESULT_VERSION)
      throw new ResultsError(
        `${file}:${i + 1}: format version ${JSON.stringify(header.version)}; this faultline reads version ${RESULT_VERSION}`,
      );
    const parsed = runResultSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ResultsError(
        `${file}:${i + 1}: ${issue?.path.join('.') || '(record)'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    if (seen.has(parsed.data.id))
      throw new ResultsError(`${file}:${i + 1}: run ${parsed.data.id} appears twice`);
    seen.add(parsed.data.id);
    results.push(parsed.data);
  }
  results.sort((a, b) => a.index - b.index);
  return { results, truncated, file };
}

/**
 * Appends finished runs to a result set, one line each, written before `append` returns: a
 * killed process loses no finished run (the bytes are in the operating system's cache, which
 * outlives the process) and at most cuts the line it was writing, which `--resume` repairs.
 * Nothing is synced to disk per run — two disk flushes a run were most of a run's wall time —
 * only once, at `close`: a power loss or an operating-system crash mid-suite can lose the
 * newest runs of the unfinished set, which a fresh run makes again.
 */
export class ResultsWriter {
  private readonly fd: number;
  readonly file: string;

  /** `fresh` starts an empty set (atomically replacing any old one); otherwise appends. */
  constructor(
    readonly dir: string,
    options: { fresh: boolean },
  ) {
    mkdirSync(join(dir, TRAJECTORIES_DIR), { recursive: true });
    this.file = join(dir, RESULTS_FILE);
    if (options.fresh) writeFileAtomic(this.file, '');
    this.fd = openSync(this.file, 'a');
  }

  /**
   * Writes the trajectory file first, then the record: a record always has its whole trajectory.
   * The record's line is what makes the run part of the set, so the trajectory is written in
   * place, without a temporary file and a rename: the writer's folder is a set being made
   * (`.pending/`), which no reader opens, and a trajectory a kill cut short has no record, so
   * `--resume` makes its run again over it (and a commit drops a file no record names).
   */
  append(result: RunResult, trajectory: unknown): void {
    // The folder was made with the writer: no `mkdir` per run.
    writeFileSync(join(this.dir, result.trajectoryFile), JSON.stringify(trajectory));
    this.appendRecord(result);
  }

  /** Appends a record whose trajectory file is already in place (merging). */
  appendRecord(result: RunResult): void {
    writeSync(this.fd, `${JSON.stringify(result)}\n`);
  }

  /** Syncs the records to disk and closes the file. */
  close(): void {
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
  }
}

/**
 * Drops a last line a kill cut short, atomically, and returns the runs already finished:
 * what `--resume` skips.
 */
export function repairResults(dir: string): RunResult[] {
  const file = join(dir, RESULTS_FILE);
  if (!existsSync(file)) return [];
  const { results, truncated } = readResults(dir, { allowTruncatedTail: true });
  if (truncated) writeFileAtomic(file, results.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return results;
}

/**
 * Writes through a temp file and a rename, so a reader (or a process killed mid-write) never
 * leaves half a file. `sync: false` skips syncing the content to disk before the rename: the
 * file is still whole or absent after a killed process, but a power loss can leave it empty.
 */
export function writeFileAtomic(
  path: string,
  content: string,
  options: { sync?: boolean } = {},
): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, content);
    if (options.sync !== false) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** A file name for a run's trajectory, safe on every file system. */
export function trajectoryFileFor(id: string): string {
  return `${TRAJECTORIES_DIR}/${id.replace(/[^a-zA-Z0-9._-]+/g, '_')}.json`;
}
