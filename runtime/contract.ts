import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';
import { failureClassSchema } from './failure-class.js';
import { predicateSchema } from './predicate.js';
import { isFrozenParsed, parseInput } from './validate.js';

export const AUTONOMY_MODES = ['shadow', 'recommend', 'supervised', 'bounded'] as const;
export const autonomyModeSchema = z.enum(AUTONOMY_MODES);
/**
 * - `shadow`: proposes; executes nothing with side effects.
 * - `recommend`: produces a plan for a person to carry out.
 * - `supervised`: every write needs an approval.
 * - `bounded`: approvals only where the contract says.
 */
export type AutonomyMode = z.infer<typeof autonomyModeSchema>;

export const RISK_TIERS = ['read', 'low', 'medium', 'high'] as const;

export const toolAuthoritySchema = z.strictObject({
  risk: z.enum(RISK_TIERS),
  /**
   * For each scoped argument, the values this tool may be called with (`'*'` for any).
   * `{ order_id: ['ord_1'] }` lets the tool touch that order only.
   */
  resources: z.record(z.string(), z.union([z.literal('*'), z.array(z.string())])).default({}),
  /** When an approval is needed in `bounded` mode: never, always, or when the predicate over `args` holds. */
  approval: z
    .union([z.enum(['never', 'always']), z.strictObject({ when: predicateSchema })])
    .default('never'),
  /**
   * A cap: a condition over `args` every call of this tool must meet (`args.amount_cents lte
   * 10000`: a goodwill refund of at most $100). A call outside it is beyond the contract's
   * authority whoever approved it — the gate refuses it, a careful approver declines it, and
   * the policy grader flags it.
   */
  cap: predicateSchema.optional(),
});
export type ToolAuthority = z.infer<typeof toolAuthoritySchema>;

export const budgetsSchema = z.strictObject({
  toolCalls: z.number().int().positive(),
  retries: z.number().int().nonnegative(),
  externalWrites: z.number().int().nonnegative(),
  virtualTimeMs: z.number().int().positive(),
  costUsd: z.number().nonnegative().default(0),
});
export type Budgets = z.infer<typeof budgetsSchema>;

export const STOP_REASONS = [
  'approval-denied',
  'permission-lost',
  'budget-exhausted',
  'policy-denied',
  'precondition-unsatisfiable',
  'ambiguous-unresolvable',
  'verification-failed',
  'invalid-output',
  'tool-error',
  'cancelled',
  'decided-not-to-act',
] as const;
/** Why a run stopped short of completing its objective; scenarios name the one they expect. */
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The execution contract: what a run is for and what it may do. Versioned and hashed; every
 * run stores both, and a resumed run whose contract changed replans with the reason recorded.
 *
 * @example
 * ```ts
 * const contract = parseContract(JSON.parse(text), 'contracts/refund.json');
 * ```
 */
export const contractSchema = z.strictObject({
  version: z.string().min(1),
  objective: z.string().min(1),
  /** `execute` a decision already made, or `investigate` which to make (the answer may be "do not"). */
  decisionBoundary: z.enum(['execute', 'investigate']),
  authority: z.strictObject({
    tools: z.record(z.string(), toolAuthoritySchema).refine((t) => Object.keys(t).length > 0, {
      message: 'at least one tool must be allowed',
    }),
  }),
  autonomy: autonomyModeSchema,
  /** Conditions over the run's scope that must hold after every confirmed write. */
  invariants: z
    .array(
      z.strictObject({ id: z.string().min(1), description: z.string(), holds: predicateSchema }),
    )
    .default([]),
  /** Evidence that must be gathered (by the named operation) before the run may finish. */
  evidenceRequired: z
    .array(
      z.strictObject({
        id: z.string().min(1),
        description: z.string(),
        operation: z.string().min(1),
      }),
    )
    .default([]),
  budgets: budgetsSchema,
  /** Failure classes that stop the run at once, whatever the supervisor would otherwise do. */
  stopConditions: z.array(failureClassSchema).default([]),
  recoveryPromise: z
    .strictObject({
      resumeFromCheckpoint: z.boolean().default(true),
      reconcileAmbiguous: z.boolean().default(true),
      compensateOnCancel: z.boolean().default(false),
    })
    .default({ resumeFromCheckpoint: true, reconcileAmbiguous: true, compensateOnCancel: false }),
});
export type Contract = z.infer<typeof contractSchema>;
export type ContractInput = z.input<typeof contractSchema>;

/** Parses a contract or throws an error naming `source` and each bad field. */
export function parseContract(value: unknown, source = 'contract'): Contract {
  return parseInput(contractSchema, value, source);
}

export { canonicalJson };

/** Hashes of values that can never change (see {@link isFrozenParsed}), by identity. */
const frozenHashes = new WeakMap<object, string>();

/**
 * A short hash of the value's canonical JSON. A value `freezeParsed` froze (a scenario's
 * contract or blueprint, hashed on every run) is hashed once.
 */
export function contentHash(value: unknown): string {
  const frozen = isFrozenParsed(value);
  const known = frozen ? frozenHashes.get(value) : undefined;
  if (known !== undefined) return known;
  const hash = createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
  if (frozen) frozenHashes.set(value, hash);
  return hash;
}
