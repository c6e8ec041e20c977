import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WireFaultTransport, type WireAction, type WireCall } from '../../faults/wire-transport.js';
import type { BlueprintInput } from '../../runtime/blueprint.js';
import type { RunCredential } from '../../runtime/credential.js';
import type { Planner } from '../../runtime/planner.js';
import { parseContract, type ContractInput } from '../../runtime/contract.js';
import { ReferenceRuntime, type RunOutcome } from '../../runtime/runtime.js';
import type { Safeguards } from '../../runtime/safeguards.js';
import { RunStore } from '../../runtime/store.js';
import type { ActionRecord, EventRecord } from '../../runtime/records.js';
import { scopeFromContract } from '../../scenarios/runner.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { connectWorld } from '../../scenarios/world/serve.js';
import { ResearchWorld } from '../../scenarios/worlds/research/world.js';

/** One run of the reference runtime on a research world, and everything it left behind. */
export interface ResearchRun {
  outcome: RunOutcome;
  world: ResearchWorld;
  /** Every call as it crossed the wire. */
  calls: WireCall[];
  /** The arguments of every `submit_answer` sent. */
  submitted: Record<string, unknown>[];
  actions: ActionRecord[];
  events: EventRecord[];
}

/**
 * Runs `blueprint` under `contract` with the reference runtime on a fresh research world
 * (seed 5) served over real MCP, to the end. `between`, when given, changes the world (or the
 * run's credential) right before it sees the run's second call — after a first read, before
 * whatever comes next.
 */
export async function runResearch(options: {
  contract: ContractInput;
  blueprint: BlueprintInput;
  input: Record<string, unknown>;
  safeguards?: Partial<Safeguards>;
  /** Wraps the runtime's planner (one that proposes what the blueprint does not say, say). */
  decoratePlanner?: (planner: Planner) => Planner;
  between?: (world: ResearchWorld, credential: RunCredential) => void;
  /** A wire fault for the second call on (a refusal the world did not make, say). */
  later?: (call: Readonly<WireCall>) => WireAction | undefined;
}): Promise<ResearchRun> {
  const clock = new VirtualClock();
  const world = new ResearchWorld({ seed: 5, clock });
  const credential = world.credentials.issue(
    'run-1',
    scopeFromContract(parseContract(options.contract)),
    3_600_000,
  );
  const wire: WireFaultTransport[] = [];
  const connection = await connectWorld(world, {
    wrapServerTransport: (t) => {
      const w = new WireFaultTransport(t, (call) => {
        if (call.step === 2) options.between?.(world, credential);
        return call.step >= 2 ? options.later?.(call) : undefined;
      });
      wire.push(w);
      return w;
    },
  });
  const store = RunStore.open(join(mkdtempSync(join(tmpdir(), 'faultline-research-')), 'runs.db'));
  try {
    const runtime = new ReferenceRuntime({
      store,
      client: connection.client,
      clock,
      credential,
      ...(options.safeguards ? { safeguards: options.safeguards } : {}),
      ...(options.decoratePlanner ? { decoratePlanner: options.decoratePlanner } : {}),
    });
    const outcome = await runtime.start({
      runId: 'run-1',
      contract: options.contract,
      blueprint: options.blueprint,
      input: options.input,
    });
    const calls = wire.flatMap((w) => w.calls);
    return {
      outcome,
      world,
      calls,
      submitted: calls.filter((c) => c.tool === 'submit_answer').map((c) => c.args),
      actions: store.actions('run-1'),
      events: store.events('run-1'),
    };
  } finally {
    store.close();
    await connection.close();
  }
}
