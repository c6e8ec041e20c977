import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WireFaultTransport, type WireDecider } from '../../faults/wire-transport.js';
import type { BlueprintInput } from '../../runtime/blueprint.js';
import type { ContractInput } from '../../runtime/contract.js';
import type { RunCredential } from '../../runtime/credential.js';
import type { ProbeHandler } from '../../runtime/crash-probe.js';
import type { Operator } from '../../runtime/operator.js';
import { ReferenceRuntime, type RuntimeOptions } from '../../runtime/runtime.js';
import type { RunStore } from '../../runtime/store.js';
import {
  notifyCustomer,
  readOrder,
  REFUND_BUDGETS,
  refundAuthority,
  refundOperation,
} from '../../scenarios/library/refunds/common.js';
import { scopeFromContract } from '../../scenarios/runner.js';
import { parseContract } from '../../runtime/contract.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { connectWorld, type WorldConnection } from '../../scenarios/world/serve.js';
import { RefundsWorld } from '../../scenarios/worlds/refunds/world.js';

/** ord_4 belongs to cus_4 for every seed; every order totals at least 30.00, so a 25.00 refund fits and needs no approval. */
export const ORDER = 'ord_4';
export const CUSTOMER = 'cus_4';

export function refundContract(overrides: Partial<ContractInput> = {}): ContractInput {
  return {
    version: '1',
    objective: `Refund 25.00 on ${ORDER} and tell the customer`,
    decisionBoundary: 'execute',
    authority: refundAuthority(ORDER, CUSTOMER),
    autonomy: 'bounded',
    budgets: { ...REFUND_BUDGETS },
    recoveryPromise: { compensateOnCancel: true },
    ...overrides,
  };
}

/** Refund then notify; `idempotent` says whether the blueprint trusts the provider's keys. */
export function refundBlueprint(idempotent: boolean, version = '1'): BlueprintInput {
  return {
    id: 'goodwill',
    version,
    operations: [readOrder, refundOperation(2500, 'goodwill', idempotent), notifyCustomer],
  };
}

export interface Harness {
  clock: VirtualClock;
  world: RefundsWorld;
  storePath: string;
  /** Every wire call across every connection made so far. */
  wire: WireFaultTransport[];
  credential: RunCredential;
  connect(decide?: WireDecider): Promise<WorldConnection>;
  runtime(
    connection: WorldConnection,
    store: RunStore,
    options?: Partial<RuntimeOptions>,
  ): ReferenceRuntime;
  calls(): WireFaultTransport['calls'];
  refunds(): ReturnType<RefundsWorld['ledger']['entries']>;
}

/** A refunds world served over real MCP with a wire-fault layer, and a store file of its own. */
export function refundHarness(options: {
  honourKeys: boolean;
  runId?: string;
  contract?: ContractInput;
  operator?: Operator;
}): Harness {
  const clock = new VirtualClock();
  const world = new RefundsWorld({ seed: 7, clock, honourIdempotencyKeys: options.honourKeys });
  const dir = mkdtempSync(join(tmpdir(), 'faultline-test-'));
  const wire: WireFaultTransport[] = [];
  const contract = parseContract(options.contract ?? refundContract());
  const credential = world.credentials.issue(
    options.runId ?? 'run-1',
    scopeFromContract(contract),
    7 * 24 * 3_600_000,
  );
  return {
    clock,
    world,
    storePath: join(dir, 'runs.db'),
    wire,
    credential,
    connect: (decide) =>
      connectWorld(world, {
        wrapServerTransport: (t) => {
          const w = new WireFaultTransport(t, decide);
          wire.push(w);
          return w;
        },
      }),
    runtime: (connection, store, extra = {}) =>
      new ReferenceRuntime({
        store,
        client: connection.client,
        clock,
        credential,
        ...(options.operator ? { operator: options.operator } : {}),
        ...extra,
      }),
    calls: () => wire.flatMap((w) => w.calls),
    refunds: () => world.ledger.entries().filter((e) => e.tool === 'issue_refund'),
  };
}

/** A probe that freezes the runtime at `probe` for `operationId`: the in-process crash. */
export function freezeAt(
  probe: string,
  operationId: string,
): { handler: ProbeHandler; reached: Promise<void> } {
  let signal!: () => void;
  const reached = new Promise<void>((resolve) => (signal = resolve));
  return {
    reached,
    handler: (name, info) => {
      if (name === probe && info.operationId === operationId) {
        signal();
        return new Promise<void>(() => undefined);
      }
      return undefined;
    },
  };
}
