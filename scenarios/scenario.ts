import { z } from 'zod';
import { faultPlanSchema } from '../faults/catalog.js';
import { blueprintSchema } from '../runtime/blueprint.js';
import { contractSchema, STOP_REASONS } from '../runtime/contract.js';
import { predicateSchema } from '../runtime/predicate.js';
import { freezeParsed, parseInput } from '../runtime/validate.js';

export const CONSEQUENCE_TIERS = ['low', 'medium', 'high'] as const;

/** A call made against the world before the run starts, to set the scene (a prior refund, say). */
const setupCallSchema = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
});

/** How the scripted operator answers approval requests. */
const approvalAnswerSchema = z.strictObject({
  decision: z.enum(['grant', 'deny']),
  /** Virtual time the person takes to answer. */
  afterMs: z.number().int().nonnegative().default(0),
  approver: z.string().default('ops-lead'),
  reason: z.string().default('not approved'),
});

export const scenarioSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9-]+\/[a-z0-9-]+$/, 'world/name in lowercase letters, digits and dashes'),
  title: z.string().min(1),
  workflowClass: z.string().min(1),
  tier: z.enum(CONSEQUENCE_TIERS),
  world: z.strictObject({
    name: z.string().min(1),
    seed: z.number().int().nonnegative(),
    options: z.record(z.string(), z.unknown()).default({}),
    setup: z.array(setupCallSchema).default([]),
  }),
  input: z.record(z.string(), z.unknown()).default({}),
  contract: contractSchema,
  blueprint: blueprintSchema,
  operator: z
    .strictObject({
      approvals: approvalAnswerSchema.default({
        decision: 'grant',
        afterMs: 0,
        approver: 'ops-lead',
        reason: 'not approved',
      }),
      /** Commands a person gives at a virtual time: pause, resume, cancel. */
      commands: z
        .array(
          z.strictObject({
            atMs: z.number().int().nonnegative(),
            kind: z.enum(['pause', 'resume', 'cancel']),
            reason: z.string().default('operator'),
          }),
        )
        .default([]),
    })
    .default({
      approvals: { decision: 'grant', afterMs: 0, approver: 'ops-lead', reason: 'not approved' },
      commands: [],
    }),
  /** Named fault plans; each id is stable, so results pair across versions. */
  faultPlans: z
    .array(faultPlanSchema)
    .default([])
    .superRefine((plans, ctx) => {
      const seen = new Set<string>(['none']);
      plans.forEach((plan, i) => {
        if (seen.has(plan.id)) {
          ctx.addIssue({
            code: 'custom',
            path: [i, 'id'],
            message: `duplicate fault plan id "${plan.id}" ("none" is reserved)`,
          });
        }
        seen.add(plan.id);
      });
    }),
  /**
   * The outcome that counts: the run's final state, the stop reason where success is
   * impossible or forbidden, and a predicate over the final world (`world`: its state;
   * `start`: the world as the run began, so a predicate can pin an amount the seed decides —
   * `{ $ref: 'start.orders.2.items.0.unit_price_cents' }`; `effects`: this run's ledger
   * entries). It pins every amount and identity the objective fixes, so a run that did the
   * wrong thing — refunded the whole order instead of one item — cannot pass.
   */
  expected: z.strictObject({
    state: z.enum(['completed', 'failed', 'blocked', 'cancelled', 'compensated']),
    stopReason: z.enum(STOP_REASONS).optional(),
    world: predicateSchema,
    /**
     * Where a budget, not the job, decides how far a run gets (a quota a lean agent may finish
     * within, a model-spend cap an agent without a model never meets): the world of the whole
     * job done. A run that ends with this world, within every budget of the contract (tool
     * calls, external writes, model spend), is expected to have completed; any other is
     * expected to end as `state` with `world`. A fault plan's own `expected` replaces both.
     */
    finished: predicateSchema.optional(),
  }),
  /**
   * The model behind the agent, as a price list: each proposal is metered (input tokens grow
   * with what the run has gathered) and its usage reported to the runtime, so runs have a
   * token count and a cost, and a contract's cost budget can run out. Absent: unmetered.
   */
  model: z
    .strictObject({
      name: z.string().min(1),
      /** Prompt and objective, sent with every proposal. */
      baseInputTokens: z.number().int().nonnegative(),
      /** Added to every later proposal for each operation already done (its result is context). */
      inputTokensPerStep: z.number().int().nonnegative().default(0),
      outputTokensPerProposal: z.number().int().nonnegative(),
      usdPerMillionInputTokens: z.number().nonnegative(),
      usdPerMillionOutputTokens: z.number().nonnegative(),
    })
    .optional(),
  tags: z.array(z.string()).default([]),
});

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;

/**
 * Declares a scenario; validated when loaded, so a mistake is reported with the field that
 * holds it before anything runs.
 *
 * @example
 * ```ts
 * export default defineScenario({ id: 'refunds/full-refund', title: 'Refund an order in full', … });
 * ```
 */
export function defineScenario(input: ScenarioInput, source = 'scenario'): Scenario {
  const scenario = parseInput(
    scenarioSchema,
    input,
    `${source}${typeof input.id === 'string' ? ` ${input.id}` : ''}`,
  );
  // Run many times, parsed once: the runtime takes these as they are.
  freezeParsed(contractSchema, scenario.contract);
  freezeParsed(blueprintSchema, scenario.blueprint);
  return scenario;
}
