import { ReferenceRuntime } from '../../runtime/runtime.js';
import type { Safeguards } from '../../runtime/safeguards.js';
import { RunStore } from '../../runtime/store.js';
import type { AgentOutcome, AgentRecords, AgentRun, AgentUnderTest } from '../agent.js';

/**
 * The reference runtime as an agent under test. Each incarnation opens the store, runs, and
 * closes it; a crashed incarnation's store is closed by the engine through `close`.
 */
export class ReferenceAgent implements AgentUnderTest {
  private readonly open = new Set<RunStore>();

  constructor(
    readonly name = 'reference',
    readonly safeguards: Partial<Safeguards> = {},
  ) {}

  start(run: AgentRun): Promise<AgentOutcome> {
    return this.incarnation(run, (runtime) =>
      runtime.start({
        runId: run.runId,
        contract: run.contract,
        blueprint: run.blueprint,
        input: run.input,
      }),
    );
  }

  resume(run: AgentRun): Promise<AgentOutcome> {
    return this.incarnation(run, (runtime) => runtime.resume(run.runId));
  }

  /** Closes every store still open: the in-process crash discards the instance this way. */
  discard(): void {
    for (const store of this.open) store.close();
    this.open.clear();
  }

  records(storePath: string, runId: string): AgentRecords | undefined {
    const store = RunStore.open(storePath);
    try {
      return {
        events: store.events(runId),
        actions: store.actions(runId),
        checkpoints: store.checkpoints(runId),
        evidence: store.evidence(runId),
      };
    } finally {
      store.close();
    }
  }

  private async incarnation(
    run: AgentRun,
    go: (runtime: ReferenceRuntime) => Promise<AgentOutcome>,
  ): Promise<AgentOutcome> {
    const store = RunStore.open(run.storePath);
    this.open.add(store);
    try {
      const runtime = new ReferenceRuntime({
        store,
        client: run.client,
        clock: run.clock,
        credential: run.credential,
        operator: run.operator,
        signal: run.signal,
        safeguards: this.safeguards,
        ...(run.probe ? { probe: run.probe } : {}),
        ...(run.decoratePlanner ? { decoratePlanner: run.decoratePlanner } : {}),
      });
      return await go(runtime);
    } finally {
      this.open.delete(store);
      store.close();
    }
  }
}
