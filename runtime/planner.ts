import { z } from 'zod';
import { checkSchema, operationSchema } from './blueprint.js';
import type { WorkingContext } from './working-context.js';

const originSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('blueprint') }),
  /** The action came from retrieved content (an instruction found in a document). */
  z.strictObject({ kind: z.literal('content'), evidenceId: z.string() }),
]);

/** What a planner may answer. Anything else is the `invalid_output` failure class. */
export const proposalSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('act'),
    operationId: z.string().min(1),
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()),
    origin: originSchema,
  }),
  z.strictObject({ kind: z.literal('skip'), operationId: z.string().min(1), reason: z.string() }),
  z.strictObject({ kind: z.literal('replan'), reason: z.string(), refresh: z.array(z.string()) }),
  z.strictObject({ kind: z.literal('finish'), summary: z.string() }),
  z.strictObject({ kind: z.literal('escalate'), reason: z.string() }),
  /**
   * The plan as data, written by the planner of an objective-only run (see
   * `runtime/written-plan.ts`): the runtime stores it as the next plan version and runs it with
   * every safeguard. It may not drop, rename or change an operation in flight or done.
   */
  z.strictObject({
    kind: z.literal('plan'),
    reason: z.string(),
    operations: z.array(operationSchema).min(1),
    completion: z.array(checkSchema).default([]),
  }),
]);
export type Proposal = z.infer<typeof proposalSchema>;

/** Tokens and cost a model-backed planner reports per call; zero for scripted planners. */
export interface PlannerUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/**
 * Proposes; never acts. The runtime validates every proposal, so a planner may return
 * anything — a model's raw JSON included.
 */
export interface Planner {
  readonly versions: { model: string; prompt: string };
  propose(context: WorkingContext): Promise<{ proposal: unknown; usage?: PlannerUsage }>;
}
