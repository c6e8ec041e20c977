/**
 * What graders may use of the runtime and the fault catalog, re-exported through the engine
 * layer that owns the trajectory. Graders stay a layer above: they read scenarios and
 * trajectories, and judge with the same predicate language, transition table and approval
 * rule the contract is written in — never with a private copy that could drift.
 */
export { canonicalJson, requestKey } from '../runtime/canonical-json.js';
export type { Contract } from '../runtime/contract.js';
export { approvalRequired, capExceeded } from '../runtime/policy.js';
export {
  describePredicate,
  evaluate,
  explainFailure,
  type Predicate,
} from '../runtime/predicate.js';
export { isLegalTransition, TERMINAL_STATES, type WorkflowState } from '../runtime/states.js';
export { faultSchema, type Fault } from '../faults/catalog.js';
export type { AgentRecords } from './agent.js';
export { judgeAnswer, type AnswerVerdict } from './answer-verdict.js';
export type { Scenario } from './scenario.js';
export type * from './trajectory.js';
