import { z } from 'zod';
import type { Fault } from '../faults/catalog.js';
import type { Operation } from '../runtime/blueprint.js';
import { canonicalJson } from '../runtime/canonical-json.js';
import { InvalidInputError } from '../runtime/errors.js';
import { setUpWorld } from '../scenarios/engine.js';
import { WORLDS } from '../scenarios/library/worlds.js';
import type { Scenario } from '../scenarios/scenario.js';
import { VirtualClock } from '../scenarios/virtual-clock.js';
import type { World } from '../scenarios/world/world.js';

/** A write operation of the blueprint, with what makes an unknown outcome of it resolvable. */
export interface WriteOperation {
  readonly id: string;
  readonly tool: string;
  /** Resending under the same key is safe: the operation is idempotent and the tool honours keys. */
  readonly resendSafe: boolean;
  /** The blueprint says how to ask the world whether the write happened. */
  readonly reconcilable: boolean;
  /** The contract can make the write wait for an approval (a crash can come while it waits). */
  readonly asksApproval: boolean;
}

type StaleFault = Extract<Fault, { kind: 'stale-record' }>;
type DocumentFault = Extract<Fault, { kind: 'hostile-document' }>;

/**
 * Everything a fault of a scenario can act on, derived from the scenario alone — its world's
 * tools and fault support, its contract, blueprint, operator and the fault plans it declares —
 * so that exploration works for any scenario without knowing it. A generated fault only ever
 * names what is here, so every generated plan passes the engine's `validateFaultPlan`.
 */
export interface ScenarioReach {
  readonly scenario: Scenario;
  /** Tools the agent may call and the blueprint uses, with how often a run can call each (≥ 1). */
  readonly calls: Readonly<Record<string, number>>;
  /** Of those, the tools that change the world. */
  readonly writeTools: readonly string[];
  /** Of those, reads and queries (the tools whose results can be emptied or contradicted). */
  readonly readTools: readonly string[];
  /** Write tools whose provider honours idempotency keys. */
  readonly keyedTools: readonly string[];
  /** Tool calls a fault-free run makes at most (every operation, check and completion read). */
  readonly baselineCalls: number;
  /** How many steps (tool calls of the run, any tool) a trigger may name. */
  readonly maxStep: number;
  readonly writes: readonly WriteOperation[];
  /** Approvals the scenario can ask for (0: approval triggers never fire). */
  readonly approvals: number;
  /** Virtual time a fault-free run spends waiting for the operator's answers. */
  readonly approvalWaitMs: number;
  /** Planner proposals a run can ask for. */
  readonly proposals: number;
  readonly timeBudgetMs: number;
  /** Stale-record changes the world can make here, each with parameters it accepted. */
  readonly staleChanges: readonly Pick<StaleFault, 'change' | 'params'>[];
  /** Hostile documents the scenario declares (instruction and canary), by tool. */
  readonly documents: readonly Pick<DocumentFault, 'tool' | 'instruction' | 'canary'>[];
  /** Per read tool, fields of its result a conflicting-evidence fault can contradict. */
  readonly contradictions: readonly { tool: string; replace: Record<string, unknown> }[];
}

/** Tools an operation calls: its own, and those of its checks, reconcile query and undo. */
function toolsOf(op: Operation): string[] {
  return [
    op.tool,
    ...op.preconditions.map((c) => c.read.tool),
    ...op.postconditions.map((c) => c.read.tool),
    ...(op.reconcile ? [op.reconcile.read.tool] : []),
    ...(op.compensate ? [op.compensate.tool] : []),
  ];
}

/**
 * Works out a scenario's reach: boots its world once (seeded, set up) to read the tools and the
 * world faults it supports, and dry-runs each candidate stale-record change on a fresh copy so
 * only changes the world accepts are offered. Throws {@link InvalidInputError} when the
 * scenario names a world that does not exist.
 *
 * @example
 * ```ts
 * const reach = scenarioReach(partialRefund);
 * reach.calls.issue_refund; // how many times a run can call it
 * ```
 */
export function scenarioReach(scenario: Scenario): ScenarioReach {
  const world = bootWorld(scenario);
  const worldTools = new Map(world.tools().map((t) => [t.name, t]));
  const allowed = (tool: string): boolean =>
    worldTools.has(tool) && Object.hasOwn(scenario.contract.authority.tools, tool);
  const ops = scenario.blueprint.operations;

  const counts: Record<string, number> = {};
  const count = (tool: string): void => {
    if (allowed(tool)) counts[tool] = (counts[tool] ?? 0) + 1;
  };
  for (const op of ops) toolsOf(op).forEach(count);
  for (const check of scenario.blueprint.completion) count(check.read.tool);
  // Retries and resumes call a tool again: leave room for a couple more than the plan names.
  const calls = Object.fromEntries(Object.entries(counts).map(([t, n]) => [t, n + 2]));
  const names = Object.keys(calls).sort();
  const kind = (tool: string): string => worldTools.get(tool)?.kind ?? 'read';
  const writeTools = names.filter((t) => kind(t) === 'write');
  const keyedTools = writeTools.filter((t) => worldTools.get(t)?.honoursIdempotencyKey === true);

  const baselineCalls =
    ops.reduce(
      (sum, op) =>
        sum + 1 + (op.kind === 'write' ? op.preconditions.length + op.postconditions.length : 0),
      0,
    ) + scenario.blueprint.completion.length;

  const asksApproval = (op: Operation): boolean =>
    scenario.contract.autonomy === 'supervised' ||
    (scenario.contract.authority.tools[op.tool]?.approval ?? 'never') !== 'never';
  const writes: WriteOperation[] = ops
    .filter((op) => op.kind === 'write')
    .map((op) => ({
      id: op.id,
      tool: op.tool,
      resendSafe: op.idempotent && keyedTools.includes(op.tool),
      reconcilable: op.reconcile !== undefined,
      asksApproval: asksApproval(op),
    }));

  const approvals = writes.filter((w) => w.asksApproval).length;

  const declared = scenario.faultPlans.flatMap((p) => p.faults);
  const support = world.faultSupport();
  return {
    scenario,
    calls,
    writeTools,
    readTools: names.filter((t) => kind(t) !== 'write'),
    keyedTools,
    baselineCalls,
    maxStep: Math.min(scenario.contract.budgets.toolCalls, baselineCalls + 4),
    writes,
    approvals,
    approvalWaitMs: approvals * scenario.operator.approvals.afterMs,
    proposals: ops.length + 2,
    timeBudgetMs: scenario.contract.budgets.virtualTimeMs,
    staleChanges: staleCandidates(scenario, support.staleChanges, declared),
    documents: uniqueBy(
      declared.flatMap((f) =>
        f.kind === 'hostile-document' && support.documentTools.includes(f.tool) && allowed(f.tool)
          ? [{ tool: f.tool, instruction: f.instruction, canary: f.canary }]
          : [],
      ),
    ),
    contradictions: names
      .filter((t) => kind(t) !== 'write')
      .flatMap((t) => {
        const output = worldTools.get(t)?.output;
        return output ? contradictionsOf(t, output) : [];
      }),
  };
}

function bootWorld(scenario: Scenario): World<unknown> {
  const factory = WORLDS[scenario.world.name];
  if (!factory) {
    throw new InvalidInputError(`scenario ${scenario.id}`, [
      `world.name: unknown world "${scenario.world.name}" (known: ${Object.keys(WORLDS).join(', ')})`,
    ]);
  }
  const world = factory.create({
    ...scenario.world.options,
    seed: scenario.world.seed,
    clock: new VirtualClock(),
  });
  setUpWorld(world, scenario);
  return world;
}

/**
 * Parameters for each change the world supports: those the scenario's own plans use, and the
 * run's input (which names the records the run is about). A candidate is kept only when a
 * fresh copy of the world accepts it, so a generated change never fails when it fires.
 */
function staleCandidates(
  scenario: Scenario,
  changes: readonly string[],
  declared: readonly Fault[],
): Pick<StaleFault, 'change' | 'params'>[] {
  const out: Pick<StaleFault, 'change' | 'params'>[] = [];
  for (const change of changes) {
    const candidates = uniqueBy([
      ...declared.flatMap((f) =>
        f.kind === 'stale-record' && f.change === change ? [f.params] : [],
      ),
      scenario.input,
    ]);
    for (const params of candidates) {
      try {
        bootWorld(scenario).applyStaleChange(change, params);
        out.push({ change, params });
      } catch {
        // The world refuses these parameters for this change: not a candidate.
      }
    }
  }
  return out;
}

/**
 * Top-level fields of a read's result, each with a value of its type that differs from any
 * a world would normally return: what a conflicting-evidence fault can put there.
 */
function contradictionsOf(
  tool: string,
  output: z.ZodObject,
): { tool: string; replace: Record<string, unknown> }[] {
  let schema: unknown;
  try {
    schema = z.toJSONSchema(output, { unrepresentable: 'any' });
  } catch {
    return [];
  }
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  if (!properties) return [];
  return Object.entries(properties).flatMap<{ tool: string; replace: Record<string, unknown> }>(
    ([field, prop]) => {
      switch (prop.type) {
        case 'integer':
        case 'number':
          return [{ tool, replace: { [field]: 0 } }];
        case 'string':
          return [{ tool, replace: { [field]: 'contradicted' } }];
        case 'boolean':
          return [
            { tool, replace: { [field]: true } },
            { tool, replace: { [field]: false } },
          ];
        case 'array':
          return [{ tool, replace: { [field]: [] } }];
        default:
          return [];
      }
    },
  );
}

function uniqueBy<T>(items: readonly T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = canonicalJson(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
