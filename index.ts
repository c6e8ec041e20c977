/**
 * faultline's public entry: the reference runtime, the scenario format and the pieces a user
 * needs to run or extend them. Everything else is internal and may change.
 */
export {
  ReferenceRuntime,
  type RunOutcome,
  type RuntimeOptions,
  type StartInput,
} from './runtime/runtime.js';
export { RunStore } from './runtime/store.js';
export {
  parseContract,
  contractSchema,
  type Contract,
  type ContractInput,
  type AutonomyMode,
  type StopReason,
} from './runtime/contract.js';
export {
  parseBlueprint,
  blueprintSchema,
  type Blueprint,
  type BlueprintInput,
  type Operation,
} from './runtime/blueprint.js';
export { type Clock, systemClock } from './runtime/clock.js';
export { type Planner, type Proposal, proposalSchema } from './runtime/planner.js';
export { ScriptedPlanner } from './runtime/scripted-planner.js';
export {
  type Operator,
  type ApprovalRequest,
  type ApprovalDecision,
  type OperatorCommand,
} from './runtime/operator.js';
export {
  CRASH_PROBES,
  STEP_PROBES,
  WAIT_PROBES,
  type CrashProbe,
  type ProbeHandler,
} from './runtime/crash-probe.js';
export { SAFEGUARDS, type Safeguard, type Safeguards } from './runtime/safeguards.js';
export { META, APPROVAL_TOKEN_META } from './runtime/protocol.js';
export { FaultlineError, InvalidInputError } from './runtime/errors.js';
export { PlannerCallError, type PlannerCallFailure } from './runtime/planner-call-error.js';
export { classifyModelError, toPlannerCallError, type ModelFailure } from './models/model-error.js';
export { WORKFLOW_STATES, TRANSITIONS, type WorkflowState } from './runtime/states.js';
export { defineScenario, type Scenario, type ScenarioInput } from './scenarios/scenario.js';
export { loadScenarioFile } from './scenarios/load.js';
export { runScenario, type ScenarioRunResult } from './scenarios/runner.js';
export { VirtualClock } from './scenarios/virtual-clock.js';
export {
  World,
  connectWorld,
  createWorldServer,
  defineTool,
  WorldError,
} from './scenarios/world/index.js';
export {
  heldResult,
  LiveWorld,
  LiveWorldError,
  openLiveWorld,
  type LiveMode,
  type LiveTarget,
  type LiveWorldOptions,
  type ShadowProposal,
} from './scenarios/world/live-world.js';
export { RefundsWorld } from './scenarios/worlds/refunds/index.js';
export {
  RecordedWorld,
  RECORDED_WORLD,
  REPLAY_MATCHES,
  followedToTheEnd,
  type RecordedWorldOptions,
  type RecordedWorldState,
  type ReplayDivergence,
  type ReplayMatch,
} from './scenarios/world/recorded-world.js';
export { WireFaultTransport, WireLog } from './faults/wire-transport.js';
export {
  gradeRun,
  type RunGrades,
  DIMENSIONS,
  FINDING_CODES,
  type Dimension,
  type Finding,
  type FindingCode,
  type Grade,
} from './graders/index.js';
export {
  suiteMetrics,
  gradedRun,
  passHatK,
  reproducibility,
  type GradedRun,
  type SuiteMetrics,
} from './graders/metrics.js';
export { detectionMatrix, EXPECTED_DETECTIONS, type MatrixReport } from './graders/matrix.js';
export { ZOO, MUTANTS, zooAgent, type ZooEntry } from './scenarios/agents/zoo.js';
export { ReferenceAgent, type ReferenceAgentOptions } from './scenarios/agents/reference.js';
export { modelPlannerAgent } from './scenarios/agents/model-planner.js';
export { ModelPlanner, type ModelPlannerOptions } from './models/model-planner.js';
export { NaiveChatLoopAgent } from './scenarios/agents/naive-chat-loop.js';
export { CrmWorld } from './scenarios/worlds/crm/index.js';
export { runTrial, type TrialOptions, type TrialResult } from './scenarios/engine.js';
export type {
  Trajectory,
  WireCallRecord,
  FiredFault,
  ExpectedOutcome,
  WorldTool,
  WorldApproval,
  ReplayRecord,
} from './scenarios/trajectory.js';
export {
  agentOutcome,
  type AgentUnderTest,
  type AgentRun,
  type AgentOutcome,
  type AgentReport,
  type AgentResult,
  type AgentRecords,
} from './scenarios/agent.js';
export {
  type AgentExport,
  type AgentFactory,
  EXPECTED_EXPORT,
  loadAgentModule,
} from './scenarios/agent-module.js';
export {
  evaluate,
  resolveValue,
  describePredicate,
  predicateSchema,
  valueExprSchema,
  type Predicate,
  type ValueExpr,
} from './runtime/predicate.js';
export type {
  ActionOrigin,
  ActionRecord,
  ActionStatus,
  ApprovalRecord,
  ApprovalStatus,
  BudgetUse,
  CheckpointBoundary,
  CheckpointRecord,
  EventRecord,
  EvidenceRecord,
  PlanRecord,
  RunRecord,
  RunVersions,
} from './runtime/records.js';
export {
  FAULT_KINDS,
  NO_FAULTS,
  faultPlanSchema,
  faultSchema,
  triggerSchema,
  type Fault,
  type FaultInput,
  type FaultKind,
  type FaultPlan,
  type FaultPlanInput,
  type Trigger,
} from './faults/catalog.js';
export { type RunCredential } from './runtime/credential.js';
export {
  faultArbitrary,
  faultPlanArbitrary,
  operatorFaultArbitrary,
  explorePlan,
  type PlanArbitraryOptions,
} from './explore/arbitraries.js';
export { scenarioReach, type ScenarioReach } from './explore/reach.js';
export { successRequired, type SuccessVerdict } from './explore/success.js';
export {
  BUILT_IN_INVARIANTS,
  checkInvariants,
  defineInvariant,
  exploredRun,
  type ExploredRun,
  type Invariant,
  type Violation,
} from './explore/invariants.js';
export {
  explore,
  judgePlan,
  type ExploreAgent,
  type ExploreOptions,
  type ExploreProgress,
  type ExploreResult,
  type ExploreCounterexample,
  type ExplorePassed,
  type JudgedPlan,
} from './explore/explore.js';
export { describeFault, describePlan } from './explore/describe.js';
export { regressionFor, regressionFileName } from './explore/regression.js';
export { BUILT_IN_SCENARIOS } from './scenarios/library/index.js';
