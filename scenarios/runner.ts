import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Scope } from '../runtime/credential.js';
import { InvalidInputError } from '../runtime/errors.js';
import type { Contract } from '../runtime/contract.js';
import { describePredicate, evaluate, resolveValue, type ValueExpr } from '../runtime/predicate.js';
import { META } from '../runtime/protocol.js';
import { ReferenceRuntime } from '../runtime/runtime.js';
import type { Safeguards } from '../runtime/safeguards.js';
import { RunStore } from '../runtime/store.js';
import { WORLDS } from './library/worlds.js';
import type { Scenario } from './scenario.js';
import { ScriptedOperator } from './scripted-operator.js';
import { VirtualClock } from './virtual-clock.js';
import { connectWorld } from './world/serve.js';
import type { LedgerEntry } from './world/effect-ledger.js';
import type { World } from './world/world.js';

export interface RunScenarioOptions {
  /** Where run stores go (one SQLite file per run under `stores/`). */
  outDir: string;
  /** Overrides the scenario's world seed. */
  seed?: number;
  safeguards?: Partial<Safeguards>;
}

/** One scenario run, as plain data for reports. */
export interface ScenarioRunResult {
  scenarioId: string;
  title: string;
  runId: string;
  seed: number;
  state: string;
  stopReason: string | null;
  detail: string | null;
  writesConfirmed: number;
  effects: number;
  virtualMs: number;
  wallMs: number;
  /** Whether the run ended as the scenario expects (state, stop reason, world). */
  asExpected: boolean;
  mismatches: string[];
  storePath: string;
}

/** The credential's scope: exactly the contract's tools, and the union of their resource limits. */
export function scopeFromContract(contract: Contract): Scope {
  const resources: Scope['resources'] = {};
  for (const authority of Object.values(contract.authority.tools)) {
    for (const [arg, allowed] of Object.entries(authority.resources)) {
      const current = resources[arg];
      if (allowed === '*' || current === '*') resources[arg] = '*';
      else resources[arg] = [...new Set([...(current ?? []), ...allowed])];
    }
  }
  return { tools: Object.keys(contract.authority.tools), resources };
}

/**
 * Runs one scenario end to end with the reference runtime: boots the seeded world, sets the
 * scene, serves the tools over MCP, runs to a terminal (or blocked) state on a virtual clock,
 * and checks the expected outcome against the world itself — never the agent's account.
 */
export async function runScenario(
  scenario: Scenario,
  options: RunScenarioOptions,
): Promise<ScenarioRunResult> {
  const started = performance.now();
  const seed = options.seed ?? scenario.world.seed;
  const runId = `${scenario.id}#${seed}`;
  const clock = new VirtualClock();
  const factory = WORLDS[scenario.world.name];
  if (!factory) {
    throw new InvalidInputError(`scenario ${scenario.id}`, [
      `world.name: unknown world "${scenario.world.name}" (known: ${Object.keys(WORLDS).join(', ')})`,
    ]);
  }
  const world = factory.create({ ...scenario.world.options, seed, clock });
  setUpWorld(world, scenario);

  const storeDir = join(options.outDir, 'stores');
  mkdirSync(storeDir, { recursive: true });
  const storePath = join(storeDir, `${runId.replace(/[^a-zA-Z0-9-]+/g, '_')}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(storePath + suffix, { force: true });

  const connection = await connectWorld(world);
  const store = RunStore.open(storePath);
  try {
    const credential = world.credentials.issue(
      runId,
      scopeFromContract(scenario.contract),
      scenario.contract.budgets.virtualTimeMs * 2,
    );
    const runtime = new ReferenceRuntime({
      store,
      client: connection.client,
      clock,
      credential,
      operator: new ScriptedOperator(scenario.operator, world, clock),
      ...(options.safeguards ? { safeguards: options.safeguards } : {}),
    });
    const outcome = await runtime.start({
      runId,
      contract: scenario.contract,
      blueprint: scenario.blueprint,
      input: scenario.input,
    });
    const effects = world.ledger.entries().filter((e) => e.runId === runId);
    const mismatches = checkExpected(scenario, outcome, world, effects);
    return {
      scenarioId: scenario.id,
      title: scenario.title,
      runId,
      seed,
      state: outcome.state,
      stopReason: outcome.stopReason,
      detail: outcome.detail,
      writesConfirmed: store
        .actions(runId)
        .filter(
          (a) => a.kind === 'write' && (a.status === 'confirmed' || a.status === 'reconciled'),
        ).length,
      effects: effects.length,
      virtualMs: clock.now(),
      wallMs: performance.now() - started,
      asExpected: mismatches.length === 0,
      mismatches,
      storePath,
    };
  } finally {
    store.close();
    await connection.close();
  }
}

function setUpWorld(world: World<unknown>, scenario: Scenario): void {
  if (scenario.world.setup.length === 0) return;
  const tools = world.tools().map((t) => t.name);
  const credential = world.credentials.issue(
    'setup',
    { tools, resources: {} },
    Number.MAX_SAFE_INTEGER,
  );
  scenario.world.setup.forEach((call, i) => {
    try {
      // Setup arguments may read the seeded world (`{ $ref: 'world.orders.4.total_cents' }`).
      const args = Object.fromEntries(
        Object.entries(call.args).map(([k, v]) => [
          k,
          resolveValue(v as ValueExpr, { world: world.snapshot() }),
        ]),
      );
      world.callTool(call.tool, args, { [META.credential]: credential.token }, `setup-${i + 1}`);
    } catch (error) {
      throw new InvalidInputError(
        `scenario ${scenario.id}`,
        [
          `world.setup[${i}] (${call.tool}) failed: ${error instanceof Error ? error.message : String(error)}`,
        ],
        { cause: error },
      );
    }
  });
  void credential.revoke?.();
}

function checkExpected(
  scenario: Scenario,
  outcome: { state: string; stopReason: string | null },
  world: World<unknown>,
  effects: readonly LedgerEntry[],
): string[] {
  const mismatches: string[] = [];
  const expected = scenario.expected;
  if (outcome.state !== expected.state)
    mismatches.push(`state: expected ${expected.state}, got ${outcome.state}`);
  if (expected.stopReason && outcome.stopReason !== expected.stopReason) {
    mismatches.push(
      `stop reason: expected ${expected.stopReason}, got ${outcome.stopReason ?? 'none'}`,
    );
  }
  if (!evaluate(expected.world, { world: world.snapshot(), effects })) {
    mismatches.push(`world: expected ${describePredicate(expected.world)}`);
  }
  return mismatches;
}
