import { parseViewMessage, type PlannerView } from '../../models/planner-view.js';
import type { Blueprint } from '../../runtime/blueprint.js';
import type { Proposal } from '../../runtime/planner.js';
import { ScriptedPlanner } from '../../runtime/scripted-planner.js';
import type { OperationView, WorkingContext } from '../../runtime/working-context.js';
import type { ProviderAnswer, ProviderRequest, Respond } from './provider-server.js';

/**
 * The model-planner oracle: answers a model planner's request with the proposal the
 * {@link ScriptedPlanner} would make over the scenario's blueprint, computed from the request
 * alone — the working context the planner's prompt sends (its JSON view) is parsed back into
 * statuses, results and the last failure. In an objective-only run whose plan is still empty
 * it answers with the plan as data: the blueprint's operations and completion checks.
 *
 * `garble` makes the first n replies malformed (not JSON), as a confused model would.
 */
export interface PlannerOracleOptions {
  garble?: number;
}

/** The proposal the oracle makes for a view (exported for unit tests of the oracle itself). */
export function oracleProposal(blueprint: Blueprint, view: PlannerView): Proposal {
  if (view.planning === 'objective' && view.plan?.operations.length === 0) {
    return {
      kind: 'plan',
      reason: `plan for: ${view.objective}`,
      operations: blueprint.operations,
      completion: blueprint.completion,
    };
  }
  const context: WorkingContext = {
    runId: 'oracle',
    objective: view.objective,
    decisionBoundary: view.decisionBoundary,
    mode: view.mode,
    input: view.input,
    planVersion: view.planVersion,
    operations: view.operations.map((o) => ({ ...o, status: o.status as OperationView['status'] })),
    evidence: [],
    scope: { ...view.results, input: view.input },
    ...(view.lastFailure ? { lastFailure: view.lastFailure } : {}),
  };
  return new ScriptedPlanner(blueprint).next(context);
}

/** A provider-server `respond` that plays the oracle over the OpenAI or Anthropic wire API. */
export function plannerOracle(blueprint: Blueprint, options: PlannerOracleOptions = {}): Respond {
  let garbled = 0;
  return (request: ProviderRequest): ProviderAnswer => {
    const text = request.messages.findLast((m) => m.role === 'user')?.text ?? '';
    const view = parseViewMessage(text);
    if (!view) {
      return { status: 599, body: { error: { message: 'planner oracle: no working context' } } };
    }
    const inputTokens = Math.ceil((request.system.length + text.length) / 4);
    if (garbled < (options.garble ?? 0)) {
      garbled++;
      return {
        text: 'I think we should refund the order.',
        usage: { inputTokens, outputTokens: 9 },
      };
    }
    const reply = JSON.stringify(oracleProposal(blueprint, view));
    return { text: reply, usage: { inputTokens, outputTokens: Math.ceil(reply.length / 4) } };
  };
}
