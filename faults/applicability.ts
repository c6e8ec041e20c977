import type { Blueprint } from '../runtime/blueprint.js';
import { FAULT_LAYER, type FaultPlan } from './catalog.js';

/**
 * A fault of the plan that cannot reach the agent of a run: the injector never fires it, the
 * recovery grade never counts it (neither exercised nor `fault-not-exercised`), and every
 * report shows it with its reason. Not a failure: a fact about the agent's reach.
 */
export interface NotApplicableFault {
  /** Its index in the plan's `faults`. */
  index: number;
  kind: string;
  reason: string;
}

/** What an agent lets faults reach, beside the world's boundary that every agent meets. */
export interface AgentReach {
  /** It reports the runtime's crash probes through `run.probe` (`exposes.probes`). */
  probes?: boolean;
  /** It passes its planner through `run.decoratePlanner` (`exposes.planner`). */
  planner?: boolean;
  /** It calls `run.model` (`exposes.model`) and the run has a model to give it. */
  model?: boolean;
  /** It can be rebuilt in a child process (the reference, or an agent module). */
  child?: boolean;
}

/**
 * The faults of `plan` that cannot reach an agent with this reach, decided before the run
 * from the plan alone, never from how the run goes:
 * - model faults (`invalid-output`, `context-compaction`, `model-swap`) act on the run's model
 *   when the agent calls one, else on the agent's planner: not applicable to an agent that
 *   exposes no planner and calls no model of the run;
 * - a crash at a runtime probe (`before-intent` … `awaiting-approval`) happens inside the
 *   runtime: not applicable to an agent that reports no probes. `after-apply` is the world's
 *   own point and stays applicable, as does `applied-write`; an `after-apply` probe naming an
 *   operation is matched, for a call that carries no operation id, by the operation's tool —
 *   so it is not applicable to such an agent when several operations share that tool;
 * - a child-process crash needs the agent rebuilt in a child: not applicable to an agent that
 *   cannot be (an in-process object with no module).
 * Everything else acts at the world's boundary, which every agent meets: a hostile document is
 * still planted for any agent (only the gullible wrapping of a planner needs one).
 *
 * @example
 * ```ts
 * const skipped = notApplicableFaults(plan, { probes: false, planner: false }, scenario.blueprint);
 * for (const f of skipped) console.log(`fault ${f.index} (${f.kind}) not applicable: ${f.reason}`);
 * ```
 */
export function notApplicableFaults(
  plan: FaultPlan,
  reach: AgentReach,
  blueprint: Blueprint,
): NotApplicableFault[] {
  const out: NotApplicableFault[] = [];
  plan.faults.forEach((fault, index) => {
    const skip = (reason: string): void => {
      out.push({ index, kind: fault.kind, reason });
    };
    if (FAULT_LAYER[fault.kind] === 'model' && reach.planner !== true && reach.model !== true) {
      skip(
        `a ${fault.kind} fault acts on the agent's planner or on the run's model, and the agent exposes no planner and calls no model of the run`,
      );
      return;
    }
    if (fault.kind !== 'crash') return;
    const trigger = fault.trigger;
    if (trigger.on === 'probe' && trigger.probe !== 'after-apply' && reach.probes !== true) {
      skip(
        `the ${trigger.probe} crash probe is inside the agent's runtime, and the agent reports no probes`,
      );
      return;
    }
    if (
      trigger.on === 'probe' &&
      trigger.probe === 'after-apply' &&
      trigger.operation !== undefined &&
      reach.probes !== true
    ) {
      const tool = blueprint.operations.find((o) => o.id === trigger.operation)?.tool;
      const sharing = blueprint.operations.filter((o) => o.tool === tool).length;
      if (tool !== undefined && sharing > 1) {
        skip(
          `after-apply of operation ${trigger.operation} is matched by its tool when the agent sends no operation id, and ${sharing} operations call ${tool} (use { on: 'applied-write', tool: '${tool}', nth })`,
        );
        return;
      }
    }
    if (fault.mode === 'child' && reach.child !== true) {
      skip(
        'a child-process crash rebuilds the agent in a child process, and this agent has no module to rebuild it from',
      );
    }
  });
  return out;
}

/**
 * The blueprint operation a write of `tool` stands for when the call names none: the one
 * operation calling that tool, or none when several (or none) do.
 */
export function operationOfTool(blueprint: Blueprint, tool: string): string | undefined {
  const matching = blueprint.operations.filter((o) => o.tool === tool);
  return matching.length === 1 ? matching[0]?.id : undefined;
}
