import type { Check, Operation } from '../runtime/blueprint.js';
import { dependenciesOf } from '../runtime/scripted-planner.js';
import { evaluate, resolveValue } from '../runtime/predicate.js';
import { DONE_STATUSES } from '../runtime/records.js';
import type { ResumePacket, ToolView, WorkingContext } from '../runtime/working-context.js';

/** How many not-yet-done operations the view shows in full (arguments resolved, `when` judged). */
export const NEXT_SHOWN = 3;

/** One operation the planner may propose next, with what it would be sent. */
export interface NextOperation {
  id: string;
  tool: string;
  kind: 'read' | 'write';
  description: string;
  /** The argument templates (`{ "$ref": "order.customer_id" }` reads an earlier result). */
  args: Record<string, unknown>;
  /** The same arguments resolved over the results so far: what `act` should send. */
  resolvedArgs: Record<string, unknown>;
  /** Whether its `when` holds now (absent: it has none). `false`: propose `skip`. */
  whenHolds?: boolean;
}

/**
 * What a model planner is shown on each call: a bounded view of the working context, never a
 * transcript. Every operation's status in one line each; the next few in full with their
 * arguments resolved; only the results those need; the last failure; the resume packet after
 * a crash. In an objective-only run also, when it may have to write the plan, the world's
 * tools and the plan as written. Its size depends on the plan, not on how long the run has gone.
 */
export interface PlannerView {
  objective: string;
  decisionBoundary: WorkingContext['decisionBoundary'];
  mode: WorkingContext['mode'];
  planning: 'blueprint' | 'objective';
  planVersion: number;
  input: Record<string, unknown>;
  operations: { id: string; tool: string; kind: 'read' | 'write'; status: string }[];
  next: NextOperation[];
  /** Results of earlier operations the next ones read, by operation id. */
  results: Record<string, unknown>;
  /**
   * Objective-only runs, when the model may have to write the plan (before it has one, after a
   * failure, on resume): the plan in force as written (empty until the model writes one).
   */
  plan?: { operations: readonly Operation[]; completion: readonly Check[] };
  /** Objective-only runs, with `plan`: the tools a plan may use. */
  tools?: readonly ToolView[];
  /** Objective-only runs, with `plan`: evidence the contract requires, by the operation id that gathers it. */
  evidenceRequired?: WorkingContext['evidenceRequired'];
  lastFailure?: WorkingContext['lastFailure'];
  resume?: ResumePacket;
}

/**
 * The bounded view of a working context. Operations come from the plan in force when the
 * context carries it, so arguments can be resolved; a planner without it sees statuses only.
 */
export function plannerView(context: WorkingContext): PlannerView {
  const planning = context.plan?.by ?? 'blueprint';
  const planned = context.plan?.operations ?? [];
  const status = new Map(context.operations.map((o) => [o.id, o.status]));
  const next: NextOperation[] = [];
  const results: Record<string, unknown> = {};
  for (const op of planned) {
    if (next.length >= NEXT_SHOWN) break;
    if (DONE_STATUSES.has(status.get(op.id) ?? 'pending')) continue;
    next.push(nextOperation(op, context.scope));
    for (const id of dependenciesOf(op)) {
      if (id in context.scope) results[id] = context.scope[id];
    }
  }
  const view: PlannerView = {
    objective: context.objective,
    decisionBoundary: context.decisionBoundary,
    mode: context.mode,
    planning,
    planVersion: context.planVersion,
    input: context.input,
    operations: context.operations.map((o) => ({
      id: o.id,
      tool: o.tool,
      kind: o.kind,
      status: o.status,
    })),
    next,
    results,
  };
  // The plan as written and the tools cost more than the rest of the view: shown when the
  // model may have to write the plan, before it has one, after a failure, and on resume.
  const mayWrite = planned.length === 0 || context.lastFailure || context.resume;
  if (planning === 'objective' && context.plan && mayWrite) {
    view.plan = { operations: context.plan.operations, completion: context.plan.completion };
    view.tools = context.tools ?? [];
    if (context.evidenceRequired?.length) view.evidenceRequired = context.evidenceRequired;
  }
  if (context.lastFailure) view.lastFailure = context.lastFailure;
  if (context.resume) view.resume = context.resume;
  return view;
}

function nextOperation(op: Operation, scope: WorkingContext['scope']): NextOperation {
  const resolvedArgs: Record<string, unknown> = {};
  for (const key in op.args) resolvedArgs[key] = resolveValue(op.args[key], scope);
  const next: NextOperation = {
    id: op.id,
    tool: op.tool,
    kind: op.kind,
    description: op.description,
    args: op.args,
    resolvedArgs,
  };
  if (op.when) next.whenHolds = evaluate(op.when, scope);
  return next;
}

/** The opening line of the user message; the view follows as one JSON code block. */
export const VIEW_HEADER = 'Working context (JSON):';

/** The user message a model planner sends: the header, then the view as a JSON block. */
export function viewMessage(view: PlannerView): string {
  return `${VIEW_HEADER}\n\`\`\`json\n${JSON.stringify(view)}\n\`\`\``;
}

/** The view back from a user message (for recorded requests and test oracles), or undefined. */
export function parseViewMessage(text: string): PlannerView | undefined {
  const start = text.indexOf(`${VIEW_HEADER}\n\`\`\`json\n`);
  if (start < 0) return undefined;
  const body = text.slice(start + VIEW_HEADER.length + 9);
  const end = body.lastIndexOf('\n```');
  try {
    return JSON.parse(end < 0 ? body : body.slice(0, end)) as PlannerView;
  } catch {
    return undefined;
  }
}
