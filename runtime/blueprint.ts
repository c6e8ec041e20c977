import { z } from 'zod';
import { predicateSchema, valueExprSchema } from './predicate.js';
import { parseInput } from './validate.js';

const readSchema = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), valueExprSchema).default({}),
});

/** A fresh read and the condition its result (`fresh`) must meet. */
export const checkSchema = z.strictObject({
  description: z.string().min(1),
  read: readSchema,
  expect: predicateSchema,
});
export type Check = z.infer<typeof checkSchema>;

/**
 * A claim-to-source check. With `each`, a path to a list in the write's scope (`args.claims`),
 * it is made once for every element of that list as the write is sent, the element named
 * `cited` (`{ $ref: 'cited.source_id' }`): a claim a planner added is checked like the rest.
 * Such a check is a rule about the tool's arguments, not one step's: it holds for every write
 * to the same tool, whichever operation, or planner, sends it.
 */
export const citationCheckSchema = checkSchema.extend({ each: z.string().min(1).optional() });
export type CitationCheck = z.infer<typeof citationCheckSchema>;

/**
 * One step of work. Its `id` is stable across versions, replans and resumes: a write's
 * idempotency key is derived from it, never from a step counter.
 */
export const operationSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'lowercase letters, digits and dashes, starting with a letter'),
  description: z.string().default(''),
  tool: z.string().min(1),
  kind: z.enum(['read', 'write']),
  args: z.record(z.string(), valueExprSchema).default({}),
  /** Run only when this holds over the scope (for investigate contracts: the answer may be "do not"). */
  when: predicateSchema.optional(),
  /**
   * Whether the write's effect is already in place, made by someone else (a colleague assigned
   * the ticket to the same person): a fresh read right before the write is sent, after its
   * preconditions and citations. When it holds the write is not sent — sending it would make
   * the effect twice — and the operation is recorded `skipped`, with the check as its reason,
   * and the run goes on. A read that fails leaves the write to go ahead; one refused for lost
   * access stops the run. Gated by the `fresh-read` safeguard (it is a fresh read or nothing).
   */
  alreadyDone: checkSchema.optional(),
  /** Read fresh right before a write; a failed one is `precondition_failed`. */
  preconditions: z.array(checkSchema).default([]),
  /** Verified right after a confirmed write. */
  postconditions: z.array(checkSchema).default([]),
  /**
   * Claim-to-source checks for a write that cites sources: each a fresh read of a cited source
   * and what it must still say (e.g. "source S2 still states claim c2 in support"), evaluated
   * right before the write, after its preconditions, over the scope plus `args` and `fresh`.
   * When one fails the write is not sent: the operation is recorded `skipped` with the failed
   * checks as its reason, and the run goes on, so a later operation whose `when` sees this one
   * absent (`{ path: '<id>', op: 'absent' }`) can fall back — say, to an "unresolved" answer —
   * rather than the run stopping. A read refused for lost access stops the run as a
   * precondition's would. Gated by the `source-check` safeguard. One with `each` checks every
   * element of a list in the write's arguments, for every write to this tool (see
   * {@link citationCheckSchema}).
   */
  citations: z.array(citationCheckSchema).default([]),
  /** Whether the provider honours the idempotency key (then a retry with the same key is safe). */
  idempotent: z.boolean().default(false),
  /** A query that tells whether this write's effect exists: `found` holds over `fresh`. */
  reconcile: z.strictObject({ read: readSchema, found: predicateSchema }).optional(),
  /** The undo, for compensation after cancellation. */
  compensate: readSchema.optional(),
});
export type Operation = z.infer<typeof operationSchema>;
export type OperationInput = z.input<typeof operationSchema>;

export const blueprintSchema = z
  .strictObject({
    id: z.string().min(1),
    version: z.string().min(1),
    operations: z.array(operationSchema).min(1),
    /** Checked before the run may report success. */
    completion: z.array(checkSchema).default([]),
  })
  .superRefine((bp, ctx) => {
    const seen = new Set<string>();
    bp.operations.forEach((op, i) => {
      if (seen.has(op.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['operations', i, 'id'],
          message: `duplicate operation id "${op.id}"`,
        });
      }
      seen.add(op.id);
    });
  });
export type Blueprint = z.infer<typeof blueprintSchema>;
export type BlueprintInput = z.input<typeof blueprintSchema>;

export function parseBlueprint(value: unknown, source = 'blueprint'): Blueprint {
  return parseInput(blueprintSchema, value, source);
}
