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
export { connectWorld, createWorldServer } from './serve.js';
export type { WorldConnection } from './serve.js';
export { defineTool } from './tool-definition.js';
export type { CallContext, ToolDefinition, ToolKind } from './tool-definition.js';
export { World } from './world.js';
export type { BeforeCallHook, WorldCall, WorldOptions } from './world.js';
export { WorldError } from './world-error.js';
