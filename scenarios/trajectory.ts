import { z } from 'zod';

export const TRAJECTORY_VERSION = 2;

/**
 * What one tool call was, as seen on the wire. `outcome` uses the invoke / ok / fail / info
 * form: `info` means the agent could not know what happened (its reply was lost, withheld or
 * came too late) — which is exactly what graders need to judge reconciliation.
 */
export const wireCallSchema = z.object({
  callId: z.string(),
  /** Which agent incarnation made it (0 for the first, +1 after each crash and restart). */
  incarnation: z.number().int().nonnegative(),
  step: z.number().int().positive(),
  toolCall: z.number().int().positive(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  idempotencyKey: z.string().nullable(),
  /** The approval token the call presented (tokens are single-use grants, not secrets). */
  approvalToken: z.string().nullable(),
  at: z.number(),
  /**
   * Its place in the run's one order of events (the virtual clock's sequence): calls, fired
   * faults, operator actions, crashes, effects and the agent's own events share it, so what
   * happened in the same millisecond is still ordered. Absent in trajectories recorded before it.
   */
  order: z.number().int().positive().optional(),
  fault: z.string().nullable(),
  /**
   * Present on a request the network delivered a second time (duplicate delivery): the id of
   * the call it repeats. The agent sent it once; graders judge the agent by the calls it made.
   */
  echoOf: z.string().optional(),
  /** Ledger sequence numbers of the effects the world applied for this call. */
  effects: z.array(z.number().int()),
  reply: z.enum(['delivered', 'dropped', 'injected', 'late', 'pending']),
  outcome: z.discriminatedUnion('type', [
    z.object({ type: z.literal('ok') }),
    z.object({
      type: z.literal('fail'),
      class: z.string(),
      /** A `rate_limited` refusal's retry-after, in ms, when the reply gave one. */
      retryAfterMs: z.number().nonnegative().optional(),
    }),
    z.object({ type: z.literal('info'), reason: z.enum(['lost', 'timeout', 'late']) }),
  ]),
});
export type WireCallRecord = z.infer<typeof wireCallSchema>;

export const ledgerEntrySchema = z.object({
  seq: z.number().int(),
  at: z.number(),
  /** Its place in the run's one order of events (see the call's `order`). */
  order: z.number().int().positive().optional(),
  runId: z.string().nullable(),
  tool: z.string(),
  requestId: z.string(),
  idempotencyKey: z.string().nullable(),
  identity: z.string(),
  effect: z.record(z.string(), z.unknown()),
  approvalToken: z.string().nullable(),
  compensates: z.number().int().nullable(),
});

/** A tool the world serves, as graders need to know it. */
export const worldToolSchema = z.object({
  name: z.string(),
  kind: z.enum(['read', 'query', 'write']),
  /** Writes only: whether a repeated idempotency key replays instead of applying again. */
  honoursIdempotencyKey: z.boolean(),
  trust: z.enum(['trusted', 'untrusted']),
});
export type WorldTool = z.infer<typeof worldToolSchema>;

/** An approval the operator granted in this run, and what the world did with it. */
export const worldApprovalSchema = z.object({
  token: z.string(),
  tool: z.string(),
  /** The effect identity the approval covers. */
  identity: z.string(),
  approver: z.string(),
  grantedAt: z.number(),
  consumedAt: z.number().nullable(),
  /** The call (world-side id) that consumed it. */
  consumedBy: z.string().nullable(),
});
export type WorldApproval = z.infer<typeof worldApprovalSchema>;

/** What the run should end in: the scenario's expectation, or its fault plan's override. */
export const expectedOutcomeSchema = z.object({
  state: z.string(),
  stopReason: z.string().nullable(),
  /** A predicate over `{ world, effects }` (see runtime/predicate.ts). */
  world: z.unknown(),
});
export type ExpectedOutcome = z.infer<typeof expectedOutcomeSchema>;

/** A fault that fired: which one of the plan, when, and on what. */
export const firedFaultSchema = z.object({
  index: z.number().int().nonnegative(),
  kind: z.string(),
  at: z.number(),
  /** Its place in the run's one order of events (see the call's `order`). */
  order: z.number().int().positive().optional(),
  callId: z.string().nullable(),
  detail: z.string(),
  /** Ledger seqs of the effects the fault made in the world (a colleague's change, say). */
  effects: z.array(z.number().int().positive()).optional(),
});
export type FiredFault = z.infer<typeof firedFaultSchema>;

/**
 * One call the agent made to its model, as the harness metered it: what was sent (as a delta on
 * the previous call's messages, so a chat loop's growing transcript is stored once), what came
 * back, the provider's reported usage, its cost under the model's prices, and its latency.
 */
export const modelCallSchema = z.object({
  /** 1-based, in the order the agent made them, across incarnations. */
  index: z.number().int().positive(),
  incarnation: z.number().int().nonnegative(),
  /** Virtual time when the call was sent. */
  at: z.number(),
  /** Its place in the run's one order of events (see the call's `order`). */
  order: z.number().int().positive().optional(),
  /** `provider:model` as called (after a model swap, the new one). */
  modelId: z.string(),
  request: z.object({
    /** How many leading messages are the previous call's request messages, unchanged. */
    kept: z.number().int().nonnegative(),
    /** The messages after those (all of them on the first call), secrets redacted. */
    messages: z.array(z.unknown()),
    /** Names of the tools offered. */
    tools: z.array(z.string()),
    /** Temperature, seed, response format and the like, as sent. */
    settings: z.record(z.string(), z.unknown()),
  }),
  /** What the agent received (after any model fault); null when the call failed. */
  reply: z
    .object({
      text: z.string(),
      toolCalls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown() })),
      finishReason: z.string(),
    })
    .nullable(),
  /** A failed call: its failure class and the provider's message (redacted). */
  error: z.object({ class: z.string(), message: z.string() }).nullable(),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }),
  costUsd: z.number(),
  /** Provider latency in ms (wall time live; the recorded figure on replay). */
  latencyMs: z.number(),
  /** The model fault that changed this call, as a short description; null when none did. */
  fault: z.string().nullable(),
});
export type ModelCallRecord = z.infer<typeof modelCallSchema>;

/** The model behind the run and how it was called (null: the agent had none). */
export const runModelSchema = z.object({
  /** `provider:model`. */
  id: z.string(),
  /** The prompt file's content hash (null: the agent's built-in default). */
  promptHash: z.string().nullable(),
  temperature: z.number().nullable(),
  seed: z.number().nullable(),
});
export type RunModel = z.infer<typeof runModelSchema>;

const replayedCallSchema = z.object({
  tool: z.string(),
  /** The arguments with the contract's `idempotency_key` and `approval_token` set aside, redacted. */
  arguments: z.record(z.string(), z.unknown()),
});

/**
 * A run against a recorded world (a cassette): how far it followed the recording, and where it
 * left it. The divergence is the first call the recording could not answer; the run ended there.
 */
export const replaySchema = z.object({
  /** The cassette file. */
  cassette: z.string(),
  /** `sequence`: the recorded calls in order (historical replay); `state`: the recording as a fixture. */
  match: z.enum(['sequence', 'state']),
  /** Recorded world calls that answered a call of the run. */
  served: z.number().int().nonnegative(),
  /** Recorded world calls that answered none. */
  remaining: z.number().int().nonnegative(),
  divergence: z
    .object({
      /** 1-based number of the world call that diverged. */
      step: z.number().int().positive(),
      /** The recorded call that should have come (its cassette step too); null: none could. */
      expected: replayedCallSchema.extend({ recordedStep: z.number().int().positive() }).nullable(),
      actual: replayedCallSchema,
      /** The diverging call's `callId` in `calls`. */
      callId: z.string(),
      message: z.string(),
    })
    .nullable(),
});
export type ReplayRecord = z.infer<typeof replaySchema>;

export const trajectorySchema = z.object({
  format: z.literal('faultline-trajectory'),
  version: z.literal(TRAJECTORY_VERSION),
  scenarioId: z.string(),
  faultPlanId: z.string(),
  trial: z.number().int().nonnegative(),
  seed: z.number().int(),
  runId: z.string(),
  agent: z.string(),
  /** The world's tool catalogue: kinds, key handling and trust, for black-box grading. */
  tools: z.array(worldToolSchema),
  expected: expectedOutcomeSchema,
  calls: z.array(wireCallSchema),
  ledger: z.array(ledgerEntrySchema),
  /** Effects applied before the run by the scenario's setup (not the agent's). */
  setupEffects: z.number().int().nonnegative(),
  world: z.object({ start: z.unknown(), end: z.unknown() }),
  /** Approvals granted for this run (not the scene's setup), from the world's registry. */
  approvals: z.array(worldApprovalSchema),
  faults: z.object({
    planned: z.array(z.unknown()),
    fired: z.array(firedFaultSchema),
    /** Faults that cannot reach this agent (absent: none): never fired, never judged. */
    notApplicable: z
      .array(
        z.object({ index: z.number().int().nonnegative(), kind: z.string(), reason: z.string() }),
      )
      .optional(),
  }),
  crashes: z.array(
    z.object({
      probe: z.string(),
      at: z.number(),
      /** Its place in the run's one order of events (see the call's `order`). */
      order: z.number().int().positive().optional(),
      mode: z.enum(['in-process', 'child']),
      operation: z.string().nullable(),
      /** The process that crashed (child mode); null in process. */
      pid: z.number().int().nullable(),
      /** Child mode: the signal the process died of (SIGKILL for a faithful crash). */
      signal: z.string().nullable().optional(),
      /** Child mode: the pid of the process that resumed the run after this crash. */
      resumedPid: z.number().int().nullable().optional(),
    }),
  ),
  operator: z.array(
    z.object({
      at: z.number(),
      /** Its place in the run's one order of events (see the call's `order`). */
      order: z.number().int().positive().optional(),
      kind: z.string(),
      detail: z.string(),
    }),
  ),
  /** The agent's own durable records, when it exposes them (white-box grading). */
  agentRecords: z.unknown().nullable(),
  outcome: z.object({
    state: z.string(),
    stopReason: z.string().nullable(),
    detail: z.string().nullable(),
    hung: z.boolean(),
  }),
  times: z.object({ virtualMs: z.number(), wallMs: z.number() }),
  /** The model the agent was given (absent or null: none). */
  model: runModelSchema.nullable().optional(),
  /** Every call the agent made to that model (absent: none was metered). */
  modelCalls: z.array(modelCallSchema).optional(),
  /** The run's world was a recording (absent: a simulated or live world). */
  replay: replaySchema.optional(),
});
export type Trajectory = z.infer<typeof trajectorySchema>;

/** The trajectory without its wall time: what determinism promises to reproduce byte for byte. */
export function deterministicPart(
  trajectory: Trajectory,
): Omit<Trajectory, 'times'> & { times: { virtualMs: number } } {
  return { ...trajectory, times: { virtualMs: trajectory.times.virtualMs } };
}
