import { parseViewMessage } from '../../models/planner-view.js';
import { canonicalJson } from '../../runtime/canonical-json.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { OracleError, oracleRespond } from './oracle.js';
import { plannerOracle } from './planner-oracle.js';
import type { Respond } from './provider-server.js';

/**
 * One scripted provider for the whole library and both model-driven agents: a model planner's
 * request (its working-context view) is answered by the planner oracle over the scenario the
 * view names; any other request (a chat loop's transcript) by the tool-loop oracle, over the
 * same scenarios.
 */
export function libraryOracle(scenarios: readonly Scenario[] = BUILT_IN_SCENARIOS): Respond {
  const toolLoop = oracleRespond({ scenarios });
  return (request) => {
    const text = request.messages.findLast((m) => m.role === 'user')?.text ?? '';
    const view = parseViewMessage(text);
    if (!view) return toolLoop(request);
    const input = canonicalJson(view.input);
    const matching = scenarios.filter((s) => s.contract.objective === view.objective);
    const scenario = matching.find((s) => canonicalJson(s.input) === input) ?? matching[0];
    if (!scenario) throw new OracleError(`planner oracle: no scenario has "${view.objective}"`);
    return plannerOracle(scenario.blueprint)(request);
  };
}
