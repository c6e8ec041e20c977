import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { InvalidInputError } from '../runtime/errors.js';
import { parseInput } from '../runtime/validate.js';
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSIONS,
  parseCassette,
  type Cassette,
  type CassetteSession,
} from './cassette.js';
import {
  RECORDING_INDEX_FILE,
  RECORDING_INDEX_FORMAT,
  RECORDING_INDEX_VERSION,
  recordingIndexSchema,
  type IndexedSession,
} from './recording-index.js';

/** One recorded session of a folder, checked: what `faultline run --replay` makes a case of. */
export interface RecordedSession {
  /** Position in the index: the case order. */
  readonly index: number;
  /** The cassette's absolute path (the recorded world reads it again, in each worker). */
  readonly file: string;
  readonly entry: IndexedSession;
  readonly cassette: Cassette;
  readonly session: CassetteSession;
}

/** A recordings folder, read whole and checked. */
export interface RecordingFolder {
  /** The folder, absolute. */
  readonly dir: string;
  readonly sessions: readonly RecordedSession[];
}

/** One problem with one file: thrown as an {@link InvalidInputError}, one line. */
const problem = (source: string, issue: string): InvalidInputError =>
  new InvalidInputError(source, [issue]);

/**
 * `JSON.parse`'s complaint, with where it stopped: Node says nothing of a position when the text
 * simply ends, which is what a truncated file looks like, so that case names the file's end.
 */
function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(why);
    // Stopped at the very end: the file was cut short (a crash mid-write, a partial copy).
    const truncated = at === null || Number(at[1]) >= text.trimEnd().length;
    const detail = `${at === null ? `${why} at position ${text.length}` : why}${truncated ? ': the file ends early, as a truncated file does' : ''}`;
    throw new InvalidInputError(source, [`(root): not valid JSON (${detail})`], { cause: error });
  }
}

async function readText(path: string, source: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError(source, [`${what}: cannot read ${path}`], { cause: error });
  }
}

/** `format` and `version` first, in words, before any other field is looked at. */
function checkHeader(
  json: unknown,
  source: string,
  format: string,
  versions: readonly number[],
): void {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw problem(source, '(root): must be a JSON object');
  const { format: got, version } = json as { format?: unknown; version?: unknown };
  if (got !== format)
    throw problem(
      source,
      `format: must be "${format}" (got ${got === undefined ? 'nothing' : JSON.stringify(got)})`,
    );
  if (typeof version !== 'number' || !versions.includes(version))
    throw problem(
      source,
      `version: must be ${versions.join(' or ')}, the versions this faultline reads (got ${version === undefined ? 'nothing' : JSON.stringify(version)})`,
    );
}

/** Tool names a scenario's blueprint and contract use, read from its JSON as recorded. */
function scenarioTools(scenario: Record<string, unknown>): string[] {
  const names = new Set<string>();
  const blueprint = scenario.blueprint as { operations?: unknown } | undefined;
  if (Array.isArray(blueprint?.operations))
    for (const op of blueprint.operations as { tool?: unknown }[])
      if (typeof op.tool === 'string') names.add(op.tool);
  const contract = scenario.contract as { authority?: { tools?: unknown } } | undefined;
  const tools = contract?.authority?.tools;
  if (tools !== null && typeof tools === 'object' && !Array.isArray(tools))
    for (const name of Object.keys(tools)) names.add(name);
  return [...names];
}

/**
 * Reads a recordings folder (`index.json` and every cassette it names) and checks it whole, so
 * a replay refuses a bad folder before it writes anything. Each problem is one
 * {@link InvalidInputError} naming the file and the field: a wrong `format` or `version`, a file
 * that is not JSON (truncated), a cassette without its `session`, an index entry naming a
 * missing file, two sessions with one run id, a cassette whose calls or whose session's
 * scenario name tools its `tools` lack.
 *
 * @example
 * ```ts
 * const folder = await readRecordingFolder('recordings/prod-2025-06');
 * folder.sessions.map((s) => s.session.runId);
 * ```
 */
export async function readRecordingFolder(dir: string): Promise<RecordingFolder> {
  const root = resolve(dir);
  const indexPath = join(root, RECORDING_INDEX_FILE);
  const folderSource = `recordings folder ${dir}`;
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw problem(folderSource, '(root): no such folder');
  if (!(await stat(indexPath).catch(() => undefined))?.isFile())
    throw problem(
      folderSource,
      `${RECORDING_INDEX_FILE}: missing (a recordings folder holds ${RECORDING_INDEX_FILE} and one cassette per session, as faultline record writes them)`,
    );
  const indexSource = `recordings index ${indexPath}`;
  const indexJson = parseJson(await readText(indexPath, indexSource, '(root)'), indexSource);
  checkHeader(indexJson, indexSource, RECORDING_INDEX_FORMAT, [RECORDING_INDEX_VERSION]);
  const index = parseInput(recordingIndexSchema, indexJson, indexSource);
  if (index.sessions.length === 0)
    throw problem(indexSource, 'sessions: empty; there is nothing to replay');

  const byRunId = new Map<string, number>();
  index.sessions.forEach((entry, i) => {
    const first = byRunId.get(entry.runId);
    if (first !== undefined)
      throw problem(
        indexSource,
        `sessions[${i}].runId: "${entry.runId}" is also the run id of sessions[${first}]; each session needs its own`,
      );
    byRunId.set(entry.runId, i);
  });

  const sessions: RecordedSession[] = [];
  for (const [i, entry] of index.sessions.entries()) {
    const file = resolve(root, entry.file);
    const inside = relative(root, file);
    if (isAbsolute(entry.file) || inside.startsWith('..') || isAbsolute(inside))
      throw problem(
        indexSource,
        `sessions[${i}].file: "${entry.file}" must name a file inside the folder`,
      );
    if (!(await stat(file).catch(() => undefined))?.isFile())
      throw problem(indexSource, `sessions[${i}].file: ${entry.file} does not exist in ${dir}`);
    sessions.push(await readSession(i, file, entry));
  }
  return { dir: root, sessions };
}

/** One cassette of the folder, checked against its index entry and against itself. */
async function readSession(
  i: number,
  file: string,
  entry: IndexedSession,
): Promise<RecordedSession> {
  const source = `cassette ${file}`;
  const json = parseJson(await readText(file, source, '(root)'), source);
  checkHeader(json, source, CASSETTE_FORMAT, CASSETTE_VERSIONS);
  const cassette = parseCassette(json, file);
  const { session } = cassette;
  if (session === undefined)
    throw problem(
      source,
      'session: missing; a replay needs the recorded session (its run id, scenario and contract), which faultline record writes',
    );
  if (session.runId !== entry.runId)
    throw problem(
      source,
      `session.runId: "${session.runId}" differs from the index's sessions[${i}].runId "${entry.runId}"`,
    );
  const offered = new Set(cassette.tools.map((t) => t.name));
  const offeredList = (): string =>
    cassette.tools.length === 0 ? 'none' : cassette.tools.map((t) => t.name).join(', ');
  const called = [
    ...new Set(
      cassette.interactions.flatMap((x) =>
        x.kind === 'tool' && !offered.has(x.tool) ? [x.tool] : [],
      ),
    ),
  ];
  if (called.length > 0) {
    const at = cassette.interactions.findIndex((x) => x.kind === 'tool' && x.tool === called[0]);
    throw problem(
      source,
      `interactions[${at}].tool: the recording calls ${called.join(', ')}, which its tools do not list (tools: ${offeredList()})`,
    );
  }
  const unknown = scenarioTools(session.scenario).filter((name) => !offered.has(name));
  if (unknown.length > 0)
    throw problem(
      source,
      `session.scenario: the agent's blueprint and contract use ${unknown.join(', ')}, which the recording's tools do not offer (tools: ${offeredList()})`,
    );
  return { index: i, file, entry, cassette, session };
}
