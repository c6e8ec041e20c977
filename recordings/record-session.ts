import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FaultlineError, InvalidInputError } from '../runtime/errors.js';
import { parseInput } from '../runtime/validate.js';
import { saveCassette, type Cassette, type CassetteSession } from './cassette.js';
import { modelCassettePath } from './model-cassette.js';
import {
  RECORDING_INDEX_FILE,
  RECORDING_INDEX_FORMAT,
  RECORDING_INDEX_VERSION,
  recordingIndexSchema,
  type IndexedSession,
  type RecordingIndex,
} from './recording-index.js';

/**
 * The file a session's cassette is written to in a recordings folder, named from its run id
 * as model cassettes are (`refunds/partial-refund#none#0` → `refunds__partial-refund.none.0.json`).
 *
 * @example
 * ```ts
 * recordingFile('refunds/partial-refund#lost-ack#0'); // → 'refunds__partial-refund.lost-ack.0.json'
 * ```
 */
export function recordingFile(runId: string): string {
  return basename(modelCassettePath('.', runId));
}

/** A parsed value as JSON for a message (a missing field shows as `nothing`). */
const shown = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

/** The index of a recordings folder, as `source` in messages. */
const indexSource = (dir: string): string => `recordings index ${join(dir, RECORDING_INDEX_FILE)}`;

/**
 * Reads and checks `DIR/index.json`: null when the folder or the index is absent, an
 * {@link InvalidInputError} of one line naming the file and the field when it is anything but
 * a recordings index (not JSON, another format, a bad entry, a folder in its place).
 *
 * @example
 * ```ts
 * const index = await readRecordingIndex('recordings'); // null for a new folder
 * ```
 */
export async function readRecordingIndex(dir: string): Promise<RecordingIndex | null> {
  const path = join(dir, RECORDING_INDEX_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return null;
    throw new InvalidInputError(
      indexSource(dir),
      [
        code === 'EISDIR'
          ? '(root): is a folder, expected a JSON file'
          : `(root): cannot be read (${String(code)})`,
      ],
      { cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new InvalidInputError(indexSource(dir), [`(root): not valid JSON (${why})`], {
      cause: error,
    });
  }
  const head = json as { format?: unknown; version?: unknown } | null;
  // Format and version first and alone: another file is refused for what it is, not its fields.
  if (typeof head !== 'object' || head === null || head.format !== RECORDING_INDEX_FORMAT)
    throw new InvalidInputError(indexSource(dir), [
      `format: must be "${RECORDING_INDEX_FORMAT}" (got ${shown(head?.format)}); is this a recordings folder?`,
    ]);
  if (head.version !== RECORDING_INDEX_VERSION)
    throw new InvalidInputError(indexSource(dir), [
      `version: must be ${RECORDING_INDEX_VERSION}, the index version this faultline reads (got ${shown(head.version)})`,
    ]);
  const index = parseInput(recordingIndexSchema, json, indexSource(dir));
  const seen = new Set<string>();
  index.sessions.forEach((s, i) => {
    if (seen.has(s.runId))
      throw new InvalidInputError(indexSource(dir), [
        `sessions[${i}].runId: ${s.runId} is listed twice (run ids are unique in a folder)`,
      ]);
    seen.add(s.runId);
  });
  return index;
}

/** Thrown when a session would replace another: same run id without `force`, or the same file. */
export class SessionExistsError extends FaultlineError<{
  dir: string;
  runId: string;
  file: string;
}> {
  override readonly name = 'SessionExistsError';
  constructor(message: string, data: { dir: string; runId: string; file: string }) {
    super('invalid-input', message, data);
  }
}

/**
 * Checks, before a session runs, that it can be written into `dir`: the folder's index (if
 * any) is a good one, no recorded session has the run id (unless `force`), and no other
 * session's file has its name. Nothing is written. Returns the index, or null for a folder
 * with none yet.
 *
 * @example
 * ```ts
 * await checkRecordedSession('recordings', 'refunds/partial-refund#none#0');
 * ```
 */
export async function checkRecordedSession(
  dir: string,
  runId: string,
  options: { force?: boolean } = {},
): Promise<RecordingIndex | null> {
  const index = await readRecordingIndex(dir);
  const file = recordingFile(runId);
  for (const s of index?.sessions ?? []) {
    if (s.runId === runId && options.force !== true)
      throw new SessionExistsError(
        `recordings ${dir}: session ${runId} is already recorded in ${join(dir, s.file)}; record it under another run id, or pass --force to replace it`,
        { dir, runId, file: s.file },
      );
    if (s.runId !== runId && s.file === file)
      throw new SessionExistsError(
        `recordings ${dir}: ${join(dir, file)} holds session ${s.runId}, whose file name run id ${runId} would take; record it under another run id`,
        { dir, runId, file },
      );
  }
  return index;
}

/** A session as the index lists it. */
function indexEntry(file: string, cassette: Cassette, session: CassetteSession): IndexedSession {
  const tools = cassette.interactions.filter((i) => i.kind === 'tool');
  const scenarioId = session.scenario.id;
  return {
    file,
    runId: session.runId,
    scenarioId: typeof scenarioId === 'string' && scenarioId !== '' ? scenarioId : session.runId,
    faultPlanId: session.faultPlanId,
    agent: session.agent.name,
    mode: session.mode,
    recordedAt: cassette.recordedAt,
    toolCalls: tools.length,
    unanswered: tools.filter((i) => i.unanswered !== undefined).length,
    verdict: session.verdict,
  };
}

/** What {@link writeRecordedSession} wrote. */
export interface WrittenSession {
  /** The cassette's file name in the folder. */
  readonly file: string;
  /** The cassette's path. */
  readonly path: string;
  /** Its entry in the index. */
  readonly entry: IndexedSession;
  /** The index as written. */
  readonly index: RecordingIndex;
}

/**
 * Writes one recorded session into a recordings folder: its cassette (checked, redacted)
 * under the run id's file name, then `index.json` with the session listed — each written to
 * a temporary file and renamed into place, so a crash leaves either the old index or the new
 * one, never half of one. Everything is checked first (see {@link checkRecordedSession}): a
 * malformed index, a run id already recorded (unless `force`, which replaces that session in
 * its place in the index) and a cassette without a `session` are refused with nothing
 * written. Other sessions are never touched. One writer per folder: the caller holds a lock.
 *
 * @example
 * ```ts
 * const { path, entry } = await writeRecordedSession('recordings', cassette);
 * console.log(`${path}: ${entry.toolCalls} tool calls, ${entry.unanswered} unanswered`);
 * ```
 */
export async function writeRecordedSession(
  dir: string,
  cassette: Cassette,
  options: { force?: boolean } = {},
): Promise<WrittenSession> {
  const session = cassette.session;
  if (session === undefined)
    throw new InvalidInputError('recorded session', [
      'session: missing; a recordings folder holds sessions (faultline record writes them), not bare cassettes',
    ]);
  const index = (await checkRecordedSession(dir, session.runId, options)) ?? {
    format: RECORDING_INDEX_FORMAT,
    version: RECORDING_INDEX_VERSION,
    sessions: [],
  };
  const file = recordingFile(session.runId);
  const entry = indexEntry(file, cassette, session);
  const at = index.sessions.findIndex((s) => s.runId === session.runId);
  const sessions =
    at < 0 ? [...index.sessions, entry] : index.sessions.map((s, i) => (i === at ? entry : s));
  const next: RecordingIndex = parseInput(
    recordingIndexSchema,
    { ...index, sessions },
    indexSource(dir),
  );

  await mkdir(dir, { recursive: true });
  const path = join(dir, file);
  await saveCassette(path, cassette);
  await writeAtomic(join(dir, RECORDING_INDEX_FILE), `${JSON.stringify(next, null, 2)}\n`);
  return { file, path, entry, index: next };
}

async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
