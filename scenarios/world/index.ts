export { ApprovalDesk, DEFAULT_APPROVAL_WAIT_MS } from './approval-desk.js';
export type { ApprovalState, ApprovalStatus, ApprovalTool } from './approval-desk.js';
export { ApprovalRegistry } from './approval-registry.js';
export type { ApprovalCheck, ApprovalRecord, ApprovalRefusal } from './approval-registry.js';
export { CredentialRegistry } from './credential-registry.js';
export type { CredentialCheck } from './credential-registry.js';
export { EffectLedger } from './effect-ledger.js';
export type {
  AppliedListener,
  DuplicateEffect,
  LedgerEntry,
  NewLedgerEntry,
} from './effect-ledger.js';
export { contractInput, takeContractArguments } from './contract-arguments.js';
export type { TakenArguments } from './contract-arguments.js';
export { connectWorld, createWorldServer, openWorldTransport } from './serve.js';
export type { WorldConnection, WorldConnectionOptions, WorldTransport } from './serve.js';
export { defineTool } from './tool-definition.js';
export type { CallContext, ToolDefinition, ToolKind } from './tool-definition.js';
export { World } from './world.js';
export type { BeforeCallHook, WorldCall, WorldOptions } from './world.js';
export { WorldError } from './world-error.js';
