import type { Planner } from '../../runtime/planner.js';
import { ReferenceRuntime } from '../../runtime/runtime.js';
import type { Safeguards } from '../../runtime/safeguards.js';
import { RunStore, type FileStoreOptions } from '../../runtime/store.js';
import type { Planning } from '../../runtime/written-plan.js';
import type { AgentOutcome, AgentRecords, AgentRun, AgentUnderTest } from '../agent.js';

/** Where the reference agent keeps its store: a SQLite file at the run's store path, or memory. */
export type StoreKind = 'file' | 'memory';

export interface ReferenceAgentOptions {
  /**
   * `memory` keeps each store as an in-memory SQLite database whose committed image outlives
   * an incarnation (and so a crash), never touching the disk: the same records, checks and
   * transactions, for exploration that makes thousands of runs. Default `file`.
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
    this.storeKind = options.store ?? 'file';
    this.options = options;
    if (options.defaultPromptHash !== undefined) this.defaultPromptHash = options.defaultPromptHash;
    this.exposes = options.planner
      ? { probes: true, planner: true, clock: true, model: true }
      : { probes: true, planner: true, clock: true };
  }

  start(run: AgentRun): Promise<AgentOutcome> {
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

  /** Closes every store still open: the in-process crash discards the instance this way. */
  discard(): void {
    for (const [store, path] of this.open) this.release(store, path);
    this.open.clear();
    if (this.finished) this.release(this.finished.store, this.finished.path);
    this.finished = undefined;
  }

  records(storePath: string, runId: string): AgentRecords | undefined {
    const kept = this.finished;
    this.finished = undefined;
    const store =
      kept?.path === storePath && kept.store.isOpen ? kept.store : this.openStore(storePath);
    try {
      const versions = store.runVersions(runId);
      return {
        events: store.events(runId),
        actions: store.actions(runId),
        checkpoints: store.checkpoints(runId),
        evidence: store.evidence(runId),
        ...(versions ? { versions } : {}),
      };
    } finally {
      store.close();
    }
  }

  private openStore(path: string): RunStore {
    if (this.storeKind === 'file')
      return RunStore.open(path, this.options.fileStore ?? HARNESS_FILE_STORE);
    return RunStore.openInMemory(this.images.get(path), path);
  }

  /** Closes a store; an in-memory one keeps what it committed, as a file would. */
  private release(store: RunStore, path: string): void {
    if (!store.isOpen) return;
    if (this.storeKind === 'memory') this.images.set(path, store.serialize());
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
      if (this.finished) this.release(this.finished.store, this.finished.path);
      this.finished = { store, path: run.storePath };
      return outcome;
    } finally {
      if (this.open.delete(store)) this.release(store, run.storePath);
    }
  }
}
