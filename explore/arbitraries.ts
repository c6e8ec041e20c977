import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  TRIGGERS_BY_KIND,
  faultPlanSchema,
  type Fault,
  type FaultKind,
  type FaultPlan,
  type Trigger,
} from '../faults/catalog.js';
import type { AgentReach } from '../faults/applicability.js';
import { canonicalJson } from '../runtime/canonical-json.js';
import { CRASH_PROBES, type CrashProbe } from '../runtime/crash-probe.js';
import type { Scenario } from '../scenarios/scenario.js';
import { scenarioReach, type ScenarioReach } from './reach.js';

/** Options of the fault-plan arbitraries. */
export interface PlanArbitraryOptions {
  /** Most faults in one plan (default 3). */
  maxFaults?: number;
  /** Only these kinds (default: every kind the scenario can suffer). */
  kinds?: readonly FaultKind[];
  /**
   * What the explored agent lets faults reach (its `exposes`); only faults applicable to it
   * are drawn: no model faults without a planner, and without probes no crash but the world's
   * own `after-apply` (at any write, or at a write operation whose tool is its own). Default:
   * everything (the reference runtime).
   */
  agent?: AgentReach;
}

type TriggerOn = Trigger['on'];

/** A scenario's reach, given the scenario or already worked out. */
function reachOf(target: Scenario | ScenarioReach): ScenarioReach {
  return 'calls' in target ? target : scenarioReach(target);
}

/**
 * The triggers of one kind the scenario can reach: calls of the tools it uses (nth within what
 * a run can make, `tools` narrowing which), steps, the first write, virtual times within the
 * budget, probabilities, crash probes × write operations, planner proposals, approvals.
 */
function triggers(
  reach: ScenarioReach,
  on: readonly TriggerOn[],
  tools: readonly string[],
  probes = true,
): fc.Arbitrary<Trigger>[] {
  const out: fc.Arbitrary<Trigger>[] = [];
  for (const kind of on) {
    switch (kind) {
      case 'call':
        if (tools.length > 0) {
          out.push(
            fc
              .record({ tool: fc.constantFrom(...tools), nth: fc.integer({ min: 1, max: 8 }) })
              .map(({ tool, nth }) => ({
                on: 'call' as const,
                tool,
                nth: Math.min(nth, reach.calls[tool] ?? 1),
              })),
          );
        }
        break;
      case 'step':
        out.push(fc.integer({ min: 1, max: reach.maxStep }).map((step) => ({ on: 'step', step })));
        break;
      case 'first-write':
        if (reach.writeTools.length > 0) out.push(fc.constant({ on: 'first-write' }));
        break;
      case 'time':
        out.push(
          fc.integer({ min: 0, max: reach.timeBudgetMs - 1 }).map((atMs) => ({ on: 'time', atMs })),
        );
        break;
      case 'probability':
        if (tools.length > 0) {
          out.push(
            fc
              .record({
                p: fc.constantFrom(1, 0.5, 0.25),
                tool: fc.option(fc.constantFrom(...tools), { nil: undefined }),
              })
              .map(({ p, tool }) =>
                tool === undefined
                  ? { on: 'probability' as const, p }
                  : { on: 'probability' as const, p, tool },
              ),
          );
        }
        break;
      case 'probe':
        if (reach.writes.length > 0) {
          // A crash awaiting an approval only where the run can wait for one; any other probe
          // at any write (a backoff or retry-after wait fires when the plan makes the run wait).
          // Without the runtime's probes only the world's own is reachable (see applicability).
          const probesAt = (asks: boolean): readonly CrashProbe[] =>
            !probes
              ? ['after-apply']
              : asks
                ? CRASH_PROBES
                : CRASH_PROBES.filter((p) => p !== 'awaiting-approval');
          const own = (w: { tool: string }): boolean =>
            probes || reach.writes.filter((o) => o.tool === w.tool).length === 1;
          const at = (
            operation: string | undefined,
            asks: boolean,
          ): fc.Arbitrary<Extract<Trigger, { on: 'probe' }>> =>
            fc
              .record({
                probe: fc.constantFrom(...probesAt(asks)),
                nth: fc.integer({ min: 1, max: 3 }),
              })
              .map(({ probe, nth }) =>
                operation === undefined
                  ? { on: 'probe' as const, probe, nth }
                  : { on: 'probe' as const, probe, operation, nth },
              );
          out.push(
            fc.oneof(
              at(undefined, reach.approvals > 0),
              ...reach.writes.filter(own).map((w) => at(w.id, w.asksApproval)),
            ),
          );
        }
        break;
      case 'proposal':
        out.push(
          fc.integer({ min: 1, max: reach.proposals }).map((nth) => ({ on: 'proposal', nth })),
        );
        break;
      case 'approval':
        if (reach.approvals > 0) {
          out.push(
            fc.integer({ min: 1, max: reach.approvals }).map((nth) => ({ on: 'approval', nth })),
          );
        }
        break;
    }
  }
  return out;
}

/** Triggers of `kind` (its catalog triggers, narrowed to `on` when given) on `tools`. */
function triggerOf(
  reach: ScenarioReach,
  kind: FaultKind,
  tools: readonly string[],
  on: readonly TriggerOn[] = TRIGGERS_BY_KIND[kind],
  probes = true,
): fc.Arbitrary<Trigger> | undefined {
  const allowed = on.filter((t) => TRIGGERS_BY_KIND[kind].includes(t));
  const options = triggers(reach, allowed, tools, probes);
  return options.length === 0 ? undefined : fc.oneof(...options);
}

/**
 * Tools a wire fault that may deliver a request twice can act on: reads, and writes whose
 * provider honours keys. A second delivery of a write without keys applies it twice whatever
 * the agent does, so such a plan would prove nothing about the agent.
 */
function twiceSafe(reach: ScenarioReach): string[] {
  return Object.keys(reach.calls).filter(
    (t) => !reach.writeTools.includes(t) || reach.keyedTools.includes(t),
  );
}

/** Every kind the scenario can suffer, each as an arbitrary of faults of that kind. */
function faultsByKind(
  reach: ScenarioReach,
  agent: AgentReach = { probes: true, planner: true },
): Partial<Record<FaultKind, fc.Arbitrary<Fault>>> {
  const tools = Object.keys(reach.calls).sort();
  const twice = twiceSafe(reach);
  // Step, probability and first-write triggers may land on any tool; keep them only when every
  // tool they could land on is safe to deliver twice.
  const twiceOn: TriggerOn[] =
    twice.length === tools.length ? ['call', 'step', 'first-write', 'probability'] : ['call'];
  const t = (kind: FaultKind, on?: readonly TriggerOn[], onTools: readonly string[] = tools) =>
    triggerOf(reach, kind, onTools, on);
  const byKind: Partial<Record<FaultKind, fc.Arbitrary<Fault>>> = {};
  const add = (
    kind: FaultKind,
    trigger: fc.Arbitrary<Trigger> | undefined,
    extra: fc.Arbitrary<Record<string, unknown>> = fc.constant({}),
  ): void => {
    if (!trigger) return;
    byKind[kind] = fc
      .tuple(trigger, extra)
      .map(([trigger, fields]) => ({ kind, trigger, ...fields }) as unknown as Fault);
  };

  add('timeout', t('timeout'));
  add('transient', t('transient'), fc.constant({ message: 'temporary failure, try again' }));
  add(
    'rate-limit',
    t('rate-limit'),
    fc.record({ retryAfterMs: fc.integer({ min: 1_000, max: 300_000 }) }),
  );
  add('malformed-reply', t('malformed-reply'));
  add(
    'unavailable',
    t('unavailable'),
    fc.record({ windowMs: fc.integer({ min: 1_000, max: 120_000 }) }),
  );
  add('lost-ack', t('lost-ack'));
  add('duplicate-delivery', t('duplicate-delivery', twiceOn, twice));
  add(
    'late-reply',
    t('late-reply', twiceOn, twice),
    fc.record({ delayMs: fc.integer({ min: 1_000, max: 300_000 }) }),
  );
  add(
    'revoked-permission',
    t('revoked-permission'),
    fc.record({ tool: fc.constantFrom(...tools) }),
  );
  add('expired-credential', t('expired-credential'));
  // Only a write has a change to drop.
  add('unapplied-write', t('unapplied-write', undefined, reach.writeTools));
  if (reach.staleChanges.length > 0) {
    add(
      'stale-record',
      t('stale-record'),
      fc.constantFrom(...reach.staleChanges).map((c) => ({ change: c.change, params: c.params })),
    );
  }
  if (reach.documents.length > 0) {
    add('hostile-document', t('hostile-document'), fc.constantFrom(...reach.documents));
  }
  // Evidence faults rewrite what one tool returns, so they trigger on that tool's calls.
  const onTool = (
    kind: 'missing-evidence' | 'conflicting-evidence',
    targets: readonly { tool: string; replace?: Record<string, unknown> }[],
  ): void => {
    const options = targets.flatMap((target) => {
      const trigger = triggerOf(reach, kind, [target.tool], ['call', 'probability']);
      return trigger ? [fc.tuple(fc.constant(target), trigger)] : [];
    });
    if (options.length === 0) return;
    byKind[kind] = fc
      .oneof(...options)
      .map(([target, trigger]) => ({ kind, trigger, ...target }) as unknown as Fault);
  };
  onTool(
    'missing-evidence',
    reach.readTools.map((tool) => ({ tool })),
  );
  onTool('conflicting-evidence', reach.contradictions);
  add('approval-denied', t('approval-denied'), fc.constant({ reason: 'denied by the approver' }));
  add(
    'approval-delayed',
    t('approval-delayed'),
    fc.record({ delayMs: fc.integer({ min: 1_000, max: 2 * reach.timeBudgetMs }) }),
  );
  add('cancellation', t('cancellation'), fc.constant({ reason: 'cancelled by the operator' }));
  // Model faults wrap a planner: only for an agent that exposes one.
  if (agent.planner === true) {
    add('invalid-output', t('invalid-output'));
    add('context-compaction', t('context-compaction'));
    add('model-swap', t('model-swap'), fc.constant({ model: 'swapped-model' }));
  }
  add(
    'crash',
    triggerOf(reach, 'crash', tools, undefined, agent.probes === true),
    fc.constant({ mode: 'in-process' }),
  );
  return byKind;
}

/**
 * Faults a scenario can suffer: any kind, at any trigger the scenario can reach, crashes
 * included (in-process). Each value passes the engine's `validateFaultPlan` for the scenario.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(faultArbitrary(partialRefund), (fault) => fault.kind !== undefined));
 * ```
 */
export function faultArbitrary(
  scenario: Scenario | ScenarioReach,
  options: Pick<PlanArbitraryOptions, 'kinds' | 'agent'> = {},
): fc.Arbitrary<Fault> {
  const byKind = faultsByKind(reachOf(scenario), options.agent);
  const kinds = (Object.keys(byKind) as FaultKind[]).filter(
    (k) => options.kinds === undefined || options.kinds.includes(k),
  );
  const arbitraries = kinds.flatMap((k) => (byKind[k] ? [byKind[k]] : []));
  if (arbitraries.length === 0) {
    const id = reachOf(scenario).scenario.id;
    throw new RangeError(
      `scenario ${id} can suffer none of the fault kinds ${options.kinds?.join(', ') ?? ''}`,
    );
  }
  return fc.oneof(...arbitraries);
}

/**
 * What a person in the loop can do, as faults: deny an approval, answer it late (within the
 * run's budget or well past it), or cancel the run at any call, step, time or approval.
 * Granting on time is what the scenario's operator already does, so it is no fault.
 *
 * @example
 * ```ts
 * const plans = fc.array(operatorFaultArbitrary(supervisedRefund), { maxLength: 2 });
 * ```
 */
export function operatorFaultArbitrary(scenario: Scenario | ScenarioReach): fc.Arbitrary<Fault> {
  return faultArbitrary(scenario, {
    kinds: ['approval-denied', 'approval-delayed', 'cancellation'],
  });
}

/** A stable id for a plan's faults: the same faults always get the same id. */
export function explorePlanId(faults: readonly Fault[]): string {
  const digest = createHash('sha256').update(canonicalJson(faults)).digest('hex').slice(0, 10);
  return `explored-${digest}`;
}

/** A plan of `faults` with its content-derived id, as the catalog's schema completes it. */
export function explorePlan(faults: readonly Fault[]): FaultPlan {
  const plan = faultPlanSchema.parse({ id: 'explored', faults });
  return { ...plan, id: explorePlanId(plan.faults) };
}

/**
 * Fault plans for a scenario: up to `maxFaults` faults of any kinds at any triggers the
 * scenario can reach, with a stable id derived from the faults. Shrinks toward fewer faults,
 * earlier calls and steps, and simpler kinds. Every plan passes `validateFaultPlan`.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * import { faultPlanArbitrary, partialRefund } from 'faultline';
 *
 * fc.assert(
 *   fc.property(faultPlanArbitrary(partialRefund, { maxFaults: 2 }), (plan) => plan.faults.length <= 2),
 * );
 * ```
 */
export function faultPlanArbitrary(
  scenario: Scenario | ScenarioReach,
  options: PlanArbitraryOptions = {},
): fc.Arbitrary<FaultPlan> {
  const maxFaults = options.maxFaults ?? 3;
  if (!Number.isInteger(maxFaults) || maxFaults < 0)
    throw new RangeError(`maxFaults must be a whole number ≥ 0 (got ${maxFaults})`);
  const reach = reachOf(scenario);
  return fc
    .array(faultArbitrary(reach, options), { maxLength: maxFaults })
    .map((faults) => explorePlan(withWaitCauses(reach, faults, maxFaults, options.kinds)));
}

/** The wire fault that makes a write wait, for each wait probe that a failure starts. */
const WAIT_CAUSE: Partial<Record<CrashProbe, 'transient' | 'rate-limit'>> = {
  'awaiting-backoff': 'transient',
  'awaiting-retry-after': 'rate-limit',
};

/**
 * A crash while a write backs off or waits out a retry-after fires only when something makes
 * the write wait, which a plan drawn fault by fault would rarely hold: where the plan has room
 * (and the kind is allowed), such a crash at a named write comes with a failure of that write's
 * first call that starts the wait.
 */
function withWaitCauses(
  reach: ScenarioReach,
  faults: readonly Fault[],
  maxFaults: number,
  kinds: readonly FaultKind[] | undefined,
): Fault[] {
  const out = [...faults];
  for (const fault of faults) {
    const t = fault.trigger;
    if (fault.kind !== 'crash' || t.on !== 'probe' || t.operation === undefined) continue;
    const cause = WAIT_CAUSE[t.probe];
    const tool = reach.writes.find((w) => w.id === t.operation)?.tool;
    if (!cause || !tool || out.length >= maxFaults) continue;
    if (kinds !== undefined && !kinds.includes(cause)) continue;
    const waits = out.some(
      (f) =>
        f.kind === cause &&
        ((f.trigger.on === 'call' && f.trigger.tool === tool) || f.trigger.on === 'probability'),
    );
    if (waits) continue;
    const trigger = { on: 'call' as const, tool, nth: 1 };
    out.unshift(
      cause === 'transient'
        ? { kind: cause, trigger, message: 'temporary failure, try again' }
        : { kind: cause, trigger, retryAfterMs: 30_000 },
    );
  }
  return out;
}
