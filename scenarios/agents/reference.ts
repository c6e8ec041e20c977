import { existsSync, renameSync, writeFileSync } from 'node:fs';
import type { Planner } from '../../runtime/planner.js';
import { ReferenceRuntime } from '../../runtime/runtime.js';
import type { Safeguards } from '../../runtime/safeguards.js';
import { RunStore, withJournalMode, type FileStoreOptions } from '../../runtime/store.js';
import type { Planning } from '../../runtime/written-plan.js';
import type { AgentOutcome, AgentRecords, AgentRun, AgentUnderTest } from '../agent.js';

/**
 * Where the reference agent keeps its store: `file`, a SQLite file at the run's store path,
 * written through; `memory`, memory only; `memory-then-file`, memory while the run is in this
 * process and the file written once, when the run has ended and its records are read or the
 * instance is discarded, whichever comes first.
 */
export type StoreKind = 'file' | 'memory' | 'memory-then-file';

export interface ReferenceAgentOptions {
  /**
   * `memory` keeps each store as an in-memory SQLite database whose committed image outlives
   * an incarnation (and so a crash), never touching the disk: the same records, checks and
   * transactions, for exploration that makes thousands of runs. `file` writes every commit
   * to the store file as it is made, for a process that may be killed (child mode's child).
   * Default `memory-then-file`: held as `memory` is while the run's incarnations are in this
   * process (an in-process crash keeps its committed image, as a file would), and written to
   * the store path as one SQLite file once the run has ended (an incarnation returned its
   * outcome), at the first of: its records are read (`records`, which the engine calls at the
   * end of every run), or the instance is discarded (`discard`). So every run the engine makes
   * leaves its store for inspection, and so does one a caller drives without reading records,
   * once it discards the agent; a run cut short (a crash, a hang) keeps only its image until it
   * ends. A store no incarnation here made (a child process wrote it) is read from its file.
   */
  store?: StoreKind;
  /**
   * The planner of each incarnation (a model planner over `run.model`); default the runtime's
   * scripted planner over the blueprint. With one, the agent also exposes `model`.
   */
  planner?: (run: AgentRun) => Planner;
  /**
   * `objective`: the run is started with its contract and the world's tools only, never the
   * scenario's blueprint, and the planner writes the plan as data. Needs `planner`.
   */
  planning?: Planning;
  /** The hash of the planner's default prompt (see `AgentUnderTest.defaultPromptHash`). */
  defaultPromptHash?: string;
  /**
   * How a `file` store is held; default {@link HARNESS_FILE_STORE}. `{}` is the runtime's own
   * default (synced, shared).
   */
  fileStore?: FileStoreOptions;
}

/**
 * A harness run's file store: never synced to disk. What such a store must survive is what the
 * engine does to it — an incarnation killed in process or a child process killed — and a
 * commit is in the operating system's cache, which outlives any process, before `commit`
 * returns. A power loss is the one thing it gives up, and a run cut short by one is made again
 * (`faultline run` makes every run not in `results.jsonl`). Syncing cost three disk flushes per
 * incarnation, most of a run's time. Not `exclusive`: in child mode the parent reads the
 * records of a store a child process may still hold open.
 */
export const HARNESS_FILE_STORE: FileStoreOptions = { sync: 'off' };

/**
 * The reference runtime as an agent under test. Each incarnation opens the store, runs, and
 * closes it; a crashed incarnation's store is closed by the engine through `close`.
 */
export class ReferenceAgent implements AgentUnderTest {
  readonly exposes: { probes: true; planner: true; clock: true; model?: true };
  private readonly open = new Map<RunStore, string>();
  /** Committed images of in-memory stores, by store path. */
  private readonly images = new Map<string, Buffer>();
  private readonly storeKind: StoreKind;
  private readonly options: ReferenceAgentOptions;
  readonly defaultPromptHash?: string;

  constructor(
    readonly name = 'reference',
    readonly safeguards: Partial<Safeguards> = {},
    options: ReferenceAgentOptions = {},
  ) {
    this.storeKind = options.store ?? 'memory-then-file';
    this.options = options;
    if (options.defaultPromptHash !== undefined) this.defaultPromptHash = options.defaultPromptHash;
    this.exposes = options.planner
      ? { probes: true, planner: true, clock: true, model: true }
      : { probes: true, planner: true, clock: true };
  }

  start(run: AgentRun): Promise<AgentOutcome> {
    // A new run on a new store, as the engine removed its file: nothing held for the path (an
    // ended run's store there, its records never read, is the one this run replaces).
    if (this.storeKind === 'memory-then-file') {
      this.images.delete(run.storePath);
      this.ended.delete(run.storePath);
      if (this.finished?.path === run.storePath) {
        this.finished.store.close();
        this.finished = undefined;
      }
    }
    return this.incarnation(run, (runtime) =>
      runtime.start({
        runId: run.runId,
        contract: run.contract,
        // Objective-only: the runtime (and so its planner) never sees the scenario's blueprint.
        ...(this.options.planning === 'objective'
          ? { planning: 'objective' as const }
          : { blueprint: run.blueprint }),
        input: run.input,
      }),
    );
  }

  resume(run: AgentRun): Promise<AgentOutcome> {
    return this.incarnation(run, (runtime) => runtime.resume(run.runId));
  }

  /**
   * Closes every store still open. The in-process crash discards the instance this way (and a
   * hang): a store an incarnation still holds keeps its committed image in memory, for the
   * run's `resume`, and is written nowhere. A `memory-then-file` store of a run that ended (an
   * incarnation returned its outcome) whose records were never read is written to its file
   * now, as `records` would have, and let go. The engine reads every run's records as it ends,
   * so when it discards (a crash or a hang, always mid-run) no run has ended unread; a caller
   * driving the agent itself gets each ended run's file by discarding it.
   */
  discard(): void {
    for (const [store, path] of this.open) this.release(store, path);
    this.open.clear();
    const finished = this.finished;
    this.finished = undefined;
    if (finished) {
      if (this.held.has(finished.store) && finished.store.isOpen) {
        writeStoreFile(finished.path, finished.store.serializeAsFile());
        this.images.delete(finished.path);
        finished.store.close();
      } else this.release(finished.store, finished.path);
    }
    for (const path of this.ended) {
      const image = this.images.get(path);
      if (image) writeStoreFile(path, withJournalMode(Buffer.from(image), 'wal'));
      this.images.delete(path);
    }
    this.ended.clear();
  }

  records(storePath: string, runId: string): AgentRecords | undefined {
    const kept = this.finished;
    this.finished = undefined;
    const store =
      kept?.path === storePath && kept.store.isOpen ? kept.store : this.openStore(storePath);
    const held = this.held.delete(store);
    try {
      const versions = store.runVersions(runId);
      const { events, actions, checkpoints, evidence } = store.history(runId);
      return { events, actions, checkpoints, evidence, ...(versions ? { versions } : {}) };
    } finally {
      // The run is over: its store goes to its file, and nothing of it stays in memory.
      if (held) {
        if (store.isOpen) writeStoreFile(storePath, store.serializeAsFile());
        this.images.delete(storePath);
        this.ended.delete(storePath);
      }
      store.close();
    }
  }

  /** Stores held in memory until their run's records are read (`memory-then-file`). */
  private readonly held = new WeakSet<RunStore>();

  /**
   * Store paths whose image is that of a run that ended, its records not read yet (its store
   * let go when a later incarnation ended): `discard` writes their files.
   */
  private readonly ended = new Set<string>();

  private openStore(path: string): RunStore {
    if (this.storeKind === 'file') return this.openFile(path);
    const image = this.images.get(path);
    // Nothing held here for the path (a `memory-then-file` store a child process wrote, or a
    // run another process began): the store is its file, read and written where it lies.
    if (this.storeKind === 'memory-then-file' && image === undefined && existsSync(path))
      return this.openFile(path);
    const store = RunStore.openInMemory(image, path);
    if (this.storeKind === 'memory-then-file') this.held.add(store);
    return store;
  }

  private openFile(path: string): RunStore {
    return RunStore.open(path, this.options.fileStore ?? HARNESS_FILE_STORE);
  }

  /** Closes a store; an in-memory one keeps what it committed, as a file would. */
  private release(store: RunStore, path: string): void {
    if (!store.isOpen) return;
    if (this.storeKind === 'memory' || this.held.has(store))
      this.images.set(path, store.serialize());
    store.close();
  }

  /**
   * The store of an incarnation that ended its run stays open until its records are read:
   * what is read is what it committed, without opening a second connection.
   */
  private finished: { store: RunStore; path: string } | undefined;

  private async incarnation(
    run: AgentRun,
    go: (runtime: ReferenceRuntime) => Promise<AgentOutcome>,
  ): Promise<AgentOutcome> {
    const store = this.openStore(run.storePath);
    this.open.set(store, run.storePath);
    try {
      const runtime = new ReferenceRuntime({
        store,
        client: run.client,
        clock: run.clock,
        credential: run.credential,
        operator: run.operator,
        signal: run.signal,
        safeguards: this.safeguards,
        ...(this.options.planner ? { planner: this.options.planner(run) } : {}),
        ...(run.probe ? { probe: run.probe } : {}),
        ...(run.decoratePlanner ? { decoratePlanner: run.decoratePlanner } : {}),
      });
      const outcome = await go(runtime);
      // Kept open for its records (a file store as much as one in memory): reading them from
      // this connection spares opening the file again.
      this.open.delete(store);
      if (this.finished) {
        // Another run ended before this one's records were read: its image waits for them.
        if (this.held.has(this.finished.store)) this.ended.add(this.finished.path);
        this.release(this.finished.store, this.finished.path);
      }
      this.finished = { store, path: run.storePath };
      return outcome;
    } finally {
      if (this.open.delete(store)) this.release(store, run.storePath);
    }
  }
}

/**
 * Writes a store's image as its file through a temporary file and a rename, so the path holds
 * the whole store or none of it; unsynced, as {@link HARNESS_FILE_STORE} is (a power loss is
 * the one thing it gives up, and a run it cut short is made again).
 */
function writeStoreFile(path: string, image: Buffer): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, image);
  renameSync(temporary, path);
}
