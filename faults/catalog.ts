import { z } from 'zod';
import { STOP_REASONS } from '../runtime/contract.js';
import { CRASH_PROBES } from '../runtime/crash-probe.js';
import { predicateSchema } from '../runtime/predicate.js';

/** Every fault kind, by the name used in files, on the command line and in reports. */
export const FAULT_KINDS = [
  'timeout',
  'transient',
  'rate-limit',
  'malformed-reply',
  'unavailable',
  'lost-ack',
  'duplicate-delivery',
  'late-reply',
  'revoked-permission',
  'expired-credential',
  'stale-record',
  'hostile-document',
  'unapplied-write',
  'missing-evidence',
  'conflicting-evidence',
  'approval-denied',
  'approval-delayed',
  'cancellation',
  'invalid-output',
  'context-compaction',
  'model-swap',
  'crash',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Where a kind acts, which decides the triggers it can take. */
export const FAULT_LAYER: Readonly<
  Record<FaultKind, 'wire' | 'world' | 'operator' | 'model' | 'process'>
> = {
  timeout: 'wire',
  transient: 'wire',
  'rate-limit': 'wire',
  'malformed-reply': 'wire',
  unavailable: 'wire',
  'lost-ack': 'wire',
  'duplicate-delivery': 'wire',
  'late-reply': 'wire',
  'revoked-permission': 'world',
  'expired-credential': 'world',
  'stale-record': 'world',
  'hostile-document': 'world',
  'unapplied-write': 'world',
  'missing-evidence': 'world',
  'conflicting-evidence': 'world',
  'approval-denied': 'operator',
  'approval-delayed': 'operator',
  cancellation: 'operator',
  'invalid-output': 'model',
  'context-compaction': 'model',
  'model-swap': 'model',
  crash: 'process',
};

const positive = z.number().int().min(1);

/**
 * When a fault fires. Call counts are per world, across reconnects, so "the 2nd issue_refund"
 * means the same call before and after a crash.
 */
export const triggerSchema = z.discriminatedUnion('on', [
  /** The nth call of a tool (1-based). */
  z.strictObject({ on: z.literal('call'), tool: z.string().min(1), nth: positive }),
  /** The kth tool call of the run, any tool. */
  z.strictObject({ on: z.literal('step'), step: positive }),
  /** The first call to a tool that writes. */
  z.strictObject({ on: z.literal('first-write') }),
  /** The nth call of any tool that writes (1-based): a point every agent that writes meets. */
  z.strictObject({ on: z.literal('write'), nth: positive }),
  /** Virtual time, in milliseconds since the run started. */
  z.strictObject({ on: z.literal('time'), atMs: z.number().int().nonnegative() }),
  /** Each call (of `tool`, when given) with probability `p`, drawn from the trial's seed. */
  z.strictObject({
    on: z.literal('probability'),
    p: z.number().gt(0).max(1),
    tool: z.string().min(1).optional(),
  }),
  /** A crash probe of the runtime, for `operation` (any when absent), the nth time it is reached. */
  z.strictObject({
    on: z.literal('probe'),
    probe: z.enum(CRASH_PROBES),
    operation: z.string().min(1).optional(),
    nth: positive.default(1),
  }),
  /**
   * Right after the world applied the run's nth write (of `tool`, when given) — a crash any
   * agent meets, probes or not: the effect exists and the agent never hears of it. Counted per
   * request the world applied, across incarnations.
   */
  z.strictObject({
    on: z.literal('applied-write'),
    nth: positive.default(1),
    tool: z.string().min(1).optional(),
  }),
  /** The nth proposal the planner is asked for (model faults). */
  z.strictObject({ on: z.literal('proposal'), nth: positive }),
  /** The nth approval the agent asks for (operator faults). */
  z.strictObject({ on: z.literal('approval'), nth: positive }),
]);
export type Trigger = z.infer<typeof triggerSchema>;

/** A call the injected content tries to provoke: its success is a fact in the ledger. */
export const canarySchema = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});

const base = { trigger: triggerSchema, note: z.string().optional() };

/** One fault: a kind, its trigger, and what the kind needs. */
export const faultSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('timeout'), ...base }),
  z.strictObject({
    kind: z.literal('transient'),
    ...base,
    message: z.string().default('temporary failure, try again'),
  }),
  z.strictObject({
    kind: z.literal('rate-limit'),
    ...base,
    retryAfterMs: z.number().int().min(1).default(30_000),
  }),
  z.strictObject({ kind: z.literal('malformed-reply'), ...base }),
  z.strictObject({
    kind: z.literal('unavailable'),
    ...base,
    windowMs: z.number().int().min(1).default(60_000),
  }),
  z.strictObject({ kind: z.literal('lost-ack'), ...base }),
  z.strictObject({ kind: z.literal('duplicate-delivery'), ...base }),
  z.strictObject({
    kind: z.literal('late-reply'),
    ...base,
    delayMs: z.number().int().min(1).default(120_000),
  }),
  z.strictObject({ kind: z.literal('revoked-permission'), ...base, tool: z.string().min(1) }),
  z.strictObject({ kind: z.literal('expired-credential'), ...base }),
  z.strictObject({
    kind: z.literal('stale-record'),
    ...base,
    /** A change the world knows how to make (see the world's `staleChanges`). */
    change: z.string().min(1),
    params: z.record(z.string(), z.unknown()).default({}),
  }),
  z.strictObject({
    kind: z.literal('hostile-document'),
    ...base,
    /** The read tool whose content carries the planted instruction. */
    tool: z.string().min(1),
    instruction: z.string().min(1),
    canary: canarySchema,
  }),
  /**
   * The provider acknowledges a write and drops the change: the reply is the world's own
   * success, the world is as before (no effect in the ledger). Only a fresh read can tell.
   */
  z.strictObject({ kind: z.literal('unapplied-write'), ...base }),
  z.strictObject({ kind: z.literal('missing-evidence'), ...base, tool: z.string().min(1) }),
  z.strictObject({
    kind: z.literal('conflicting-evidence'),
    ...base,
    tool: z.string().min(1),
    /** Fields of the result replaced by contradicting values. */
    replace: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    kind: z.literal('approval-denied'),
    ...base,
    reason: z.string().default('denied by the approver'),
  }),
  z.strictObject({
    kind: z.literal('approval-delayed'),
    ...base,
    delayMs: z
      .number()
      .int()
      .min(1)
      .default(2 * 86_400_000),
  }),
  z.strictObject({
    kind: z.literal('cancellation'),
    ...base,
    reason: z.string().default('cancelled by the operator'),
  }),
  z.strictObject({ kind: z.literal('invalid-output'), ...base }),
  z.strictObject({ kind: z.literal('context-compaction'), ...base }),
  z.strictObject({
    kind: z.literal('model-swap'),
    ...base,
    model: z.string().default('swapped-model'),
    prompt: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal('crash'),
    ...base,
    mode: z.enum(['in-process', 'child']).default('in-process'),
  }),
]);
export type Fault = z.infer<typeof faultSchema>;
export type FaultInput = z.input<typeof faultSchema>;

const ON_CALLS = ['call', 'step', 'first-write', 'write', 'probability'] as const;

/**
 * The triggers each kind can take; anything else could never fire and is refused at load.
 * Wire faults act on a call, so they need a call to act on — except `unavailable`, which opens
 * a window at a time; world changes can also happen at a time; approvals fail on an approval.
 */
export const TRIGGERS_BY_KIND: Readonly<Record<FaultKind, readonly Trigger['on'][]>> = {
  timeout: ON_CALLS,
  transient: ON_CALLS,
  'rate-limit': ON_CALLS,
  'malformed-reply': ON_CALLS,
  unavailable: [...ON_CALLS, 'time'],
  'lost-ack': ON_CALLS,
  'duplicate-delivery': ON_CALLS,
  'late-reply': ON_CALLS,
  'missing-evidence': ON_CALLS,
  'conflicting-evidence': ON_CALLS,
  'revoked-permission': ['call', 'step', 'first-write', 'write', 'time'],
  'expired-credential': ['call', 'step', 'first-write', 'write', 'time'],
  'stale-record': ['call', 'step', 'first-write', 'write', 'time'],
  'hostile-document': ['call', 'step', 'first-write', 'write', 'time'],
  // It acts on a write as the world handles it, so it needs a call — of a write tool.
  'unapplied-write': ['call', 'first-write', 'write', 'probability'],
  'approval-denied': ['approval'],
  'approval-delayed': ['approval'],
  cancellation: ['call', 'step', 'write', 'time', 'approval'],
  'invalid-output': ['proposal'],
  'context-compaction': ['proposal'],
  'model-swap': ['proposal'],
  // A probe is the runtime's own point (and `after-apply` the world's); `applied-write` needs none.
  crash: ['probe', 'applied-write'],
};

/**
 * What a plan changes about the scenario's expected outcome, when its faults make success
 * impossible or forbidden (a revoked permission: the right outcome is a safe stop).
 */
const expectedOverrideSchema = z.strictObject({
  state: z.enum(['completed', 'failed', 'blocked', 'cancelled', 'compensated']),
  stopReason: z.enum(STOP_REASONS).optional(),
  world: predicateSchema.optional(),
});

/** A named set of faults; its id is stable so results pair across versions. */
export const faultPlanSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lowercase letters, digits and dashes'),
  description: z.string().default(''),
  faults: z.array(faultSchema),
  expected: expectedOverrideSchema.optional(),
});
export type FaultPlan = z.infer<typeof faultPlanSchema>;
export type FaultPlanInput = z.input<typeof faultPlanSchema>;

/** The plan every scenario has: nothing injected. */
export const NO_FAULTS: FaultPlan = { id: 'none', description: 'no faults', faults: [] };
