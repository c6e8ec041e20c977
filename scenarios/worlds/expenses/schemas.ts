import { z } from 'zod';

/**
 * The expenses world's tool contract: argument and result schemas, snake_case as an expense
 * platform's API would name them. Amounts in integer cents. Schemas stay permissive where the
 * world itself gives a typed refusal (a non-positive amount, a currency other than the claim's,
 * a stale `claim_version` are refusals from the world, not schema rejections), so agents see
 * the error class.
 */
export const categorySchema = z.enum(['meals', 'airfare', 'lodging', 'training', 'software']);
/** `submitted` waits for the employee's manager; `approved` claims wait for finance to pay them. */
export const claimStatusSchema = z.enum([
  'submitted',
  'approved',
  'paid',
  'rejected',
  'returned',
  'withdrawn',
]);
export const payoutStatusSchema = z.enum(['sent', 'cancelled']);
export const delegationStatusSchema = z.enum(['scheduled', 'active', 'ended', 'withdrawn']);
/** What `mark_claim` may set: paid once a payout is on record, or back to the employee. */
export const markStatusSchema = z.enum(['paid', 'rejected', 'returned']);

export const claimViewSchema = z.object({
  claim_id: z.string(),
  employee: z.object({
    employee_id: z.string(),
    name: z.string(),
    email: z.string(),
    department: z.string(),
  }),
  cost_centre: z.string(),
  category: categorySchema,
  merchant: z.string(),
  incurred_on: z.string(),
  line_items: z.array(z.object({ description: z.string(), amount_cents: z.number().int() })),
  amount_cents: z.number().int(),
  currency: z.string(),
  attendees: z.number().int().nullable(),
  nights: z.number().int().nullable(),
  description: z.string(),
  receipt: z.object({ receipt_id: z.string(), text: z.string() }).nullable(),
  status: claimStatusSchema,
  /** Bumped by every change to the claim; a payout names the revision it pays. */
  version: z.number().int(),
  submitted_at: z.string(),
  manager_approved_by: z.string(),
  history: z.array(
    z.object({ at: z.string(), event: z.string(), by: z.string(), comment: z.string() }),
  ),
});

export const categoryRuleSchema = z.object({
  category: categorySchema,
  /** Cap in cents, per `cap_basis`; null where the category has none. */
  cap_cents: z.number().int().nullable(),
  cap_basis: z.enum(['per_attendee', 'per_night', 'per_claim']).nullable(),
  /** A receipt is required for claims above this amount (0: always). */
  receipt_required_above_cents: z.number().int(),
  notes: z.string(),
});

export const policySchema = z.object({
  policy_id: z.string(),
  effective_from: z.string(),
  currency: z.string(),
  controller_approval_above_cents: z.number().int(),
  submission_window_days: z.number().int(),
  categories: z.array(categoryRuleSchema),
  rules: z.array(z.string()),
});

export const violationSchema = z.object({
  rule: z.enum(['over-cap', 'receipt-required', 'duplicate', 'submission-window']),
  detail: z.string(),
});

export const policyCheckSchema = z.object({
  claim_id: z.string(),
  /** The claim revision the verdict is about. */
  claim_version: z.number().int(),
  within_policy: z.boolean(),
  violations: z.array(violationSchema),
  /** What the policy allows to be paid on this revision. */
  reimbursable_cents: z.number().int(),
  controller_approval_required: z.boolean(),
  duplicate_of: z.string().nullable(),
});

export const delegationSchema = z.object({
  delegation_id: z.string(),
  approver: z.string(),
  approver_name: z.string(),
  deputy: z.string(),
  deputy_name: z.string(),
  starts_at: z.string(),
  ends_at: z.string(),
  status: delegationStatusSchema,
  reason: z.string(),
});

export const payoutSchema = z.object({
  payout_id: z.string(),
  claim_id: z.string(),
  employee_id: z.string(),
  amount_cents: z.number().int(),
  currency: z.string(),
  method: z.literal('ach'),
  status: payoutStatusSchema,
  sent_at: z.string(),
  cancelled_at: z.string().nullable(),
  idempotency_key: z.string().nullable(),
  /** Who signed the payout off, where it needed a sign-off. */
  approved_by: z.string().nullable(),
  /** The approver a deputy signed for, under a delegation. */
  on_behalf_of: z.string().nullable(),
});

export const getClaimInput = z.object({ claim_id: z.string() });
export const listPolicyInput = z.object({});
export const checkPolicyInput = z.object({ claim_id: z.string() });
export const getDelegationsInput = z.object({ approver: z.string().optional() });
export const getDelegationsOutput = z.object({ delegations: z.array(delegationSchema) });
export const getPayoutsInput = z.object({ claim_id: z.string() });
export const getPayoutsOutput = z.object({ claim_id: z.string(), payouts: z.array(payoutSchema) });
export const issuePayoutInput = z.object({
  claim_id: z.string(),
  amount_cents: z.number().int(),
  currency: z.string(),
  claim_version: z.number().int(),
});
export const cancelPayoutInput = z.object({ payout_id: z.string(), reason: z.string().min(1) });
export const markClaimInput = z.object({
  claim_id: z.string(),
  status: markStatusSchema,
  comment: z.string().min(1),
});
export const markClaimOutput = z.object({
  claim_id: z.string(),
  status: claimStatusSchema,
  version: z.number().int(),
});

export type Category = z.infer<typeof categorySchema>;
export type ClaimStatus = z.infer<typeof claimStatusSchema>;
export type PayoutStatus = z.infer<typeof payoutStatusSchema>;
export type MarkStatus = z.infer<typeof markStatusSchema>;
export type ClaimView = z.infer<typeof claimViewSchema>;
export type Policy = z.infer<typeof policySchema>;
export type PolicyCheck = z.infer<typeof policyCheckSchema>;
export type Violation = z.infer<typeof violationSchema>;
export type DelegationView = z.infer<typeof delegationSchema>;
export type PayoutView = z.infer<typeof payoutSchema>;
