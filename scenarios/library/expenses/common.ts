import type { OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate } from '../../../runtime/predicate.js';

/** Shared pieces of the expense scenarios: the finance-ops desk's authority and its operations. */

const DAY = 86_400_000;

/** A week of virtual time: long enough for a controller who answers days later. */
export const EXPENSE_BUDGETS = {
  toolCalls: 40,
  retries: 8,
  externalWrites: 6,
  virtualTimeMs: 7 * DAY,
};

/** The controller (`fin_1`), whose sign-off payouts above $500 need. */
export const CONTROLLER = 'fin_1';
/** The assistant controller (`fin_2`), the controller's deputy while she is away. */
export const DEPUTY = 'fin_2';

/** A payout above $500 needs the controller's sign-off (or a deputy's under a delegation). */
const aboveThreshold: Predicate = { path: 'args.amount_cents', op: 'gt', value: 50_000 };

/**
 * What the desk may touch for one claim: read it, its policy verdict and its payouts; pay it
 * (with a sign-off above the threshold), recall the payout, close the claim; and, where a
 * deputy signs, read the controller's delegations.
 */
export function expenseAuthority(
  claimId: string,
  options: { delegations?: boolean } = {},
): ContractInput['authority'] {
  const claim = { claim_id: [claimId] };
  return {
    tools: {
      get_claim: { risk: 'read', resources: claim },
      list_policy: { risk: 'read' },
      check_policy: { risk: 'read', resources: claim },
      get_payouts: { risk: 'read', resources: claim },
      issue_payout: { risk: 'high', resources: claim, approval: { when: aboveThreshold } },
      cancel_payout: { risk: 'medium' },
      mark_claim: { risk: 'low', resources: claim },
      ...(options.delegations
        ? { get_delegations: { risk: 'read', resources: { approver: [CONTROLLER] } } }
        : {}),
    },
  };
}

/** The desk's contract for one claim: authority, a week's budgets, bounded autonomy. */
export function expenseContract(options: {
  claim: string;
  objective: string;
  decisionBoundary?: ContractInput['decisionBoundary'];
  evidenceRequired?: ContractInput['evidenceRequired'];
  stopConditions?: ContractInput['stopConditions'];
  compensateOnCancel?: boolean;
  delegations?: boolean;
}): ContractInput {
  return {
    version: '1',
    objective: options.objective,
    decisionBoundary: options.decisionBoundary ?? 'execute',
    authority: expenseAuthority(options.claim, options.delegations ? { delegations: true } : {}),
    autonomy: 'bounded',
    evidenceRequired: options.evidenceRequired ?? [
      { id: 'claim-record', description: 'the claim and its receipt as read', operation: 'claim' },
      {
        id: 'policy-verdict',
        description: 'the policy check on the revision paid',
        operation: 'policy',
      },
    ],
    budgets: EXPENSE_BUDGETS,
    ...(options.stopConditions ? { stopConditions: options.stopConditions } : {}),
    ...(options.compensateOnCancel
      ? {
          recoveryPromise: {
            resumeFromCheckpoint: true,
            reconcileAmbiguous: true,
            compensateOnCancel: true,
          },
        }
      : {}),
  };
}

const claimRead = { tool: 'get_claim', args: { claim_id: { $ref: 'input.claim_id' } } };
const policyRead = { tool: 'check_policy', args: { claim_id: { $ref: 'input.claim_id' } } };
const payoutsRead = { tool: 'get_payouts', args: { claim_id: { $ref: 'input.claim_id' } } };

/** Read the claim the run is about (`input.claim_id`) as operation `claim`. */
export const readClaim: OperationInput = {
  id: 'claim',
  description: 'Read the claim and its receipt',
  tool: 'get_claim',
  kind: 'read',
  args: { claim_id: { $ref: 'input.claim_id' } },
};

/** Check the claim against the policy, as operation `policy`. */
export const checkPolicy: OperationInput = {
  id: 'policy',
  description: 'Check the claim against the expense policy',
  tool: 'check_policy',
  kind: 'read',
  args: { claim_id: { $ref: 'input.claim_id' } },
};

/** Read who signs for the controller while she is away, as operation `delegations`. */
export const readDelegations: OperationInput = {
  id: 'delegations',
  description: "Read the delegations of the controller's sign-off",
  tool: 'get_delegations',
  kind: 'read',
  args: { approver: CONTROLLER },
};

/** A payout of exactly the action's amount is on record for the claim and not recalled. */
const payoutOnRecord: Predicate = {
  some: {
    path: 'fresh.payouts',
    where: {
      all: [
        { path: 'item.amount_cents', op: 'eq', value: { $ref: 'action.args.amount_cents' } },
        { path: 'item.status', op: 'eq', value: 'sent' },
      ],
    },
  },
};

/**
 * Reimburse the amount the policy check allows on the revision it checked. Right before paying,
 * the claim is read again (still that revision, still approved) and checked again against the
 * policy. The undo recalls the payout.
 *
 * The rail honours the key, so every send of this payout carries the same one; but an unknown
 * outcome (no reply, a crash before the result was saved) is settled by asking `get_payouts`,
 * the ledger finance reconciles against, and the payout is sent again only when it is absent:
 * a second instruction to the bank for money already paid is never sent on the hope that the
 * key will be honoured.
 */
export const payClaim: OperationInput = {
  id: 'payout',
  description: 'Reimburse the employee by ACH',
  tool: 'issue_payout',
  kind: 'write',
  args: {
    claim_id: { $ref: 'input.claim_id' },
    amount_cents: { $ref: 'policy.reimbursable_cents' },
    currency: { $ref: 'claim.currency' },
    claim_version: { $ref: 'policy.claim_version' },
  },
  preconditions: [
    {
      description: 'the claim is still the revision checked, and still approved',
      read: claimRead,
      expect: {
        all: [
          { path: 'fresh.version', op: 'eq', value: { $ref: 'args.claim_version' } },
          { path: 'fresh.status', op: 'eq', value: 'approved' },
        ],
      },
    },
    {
      description: 'the claim is within policy',
      read: policyRead,
      expect: { path: 'fresh.within_policy', op: 'eq', value: true },
    },
  ],
  postconditions: [
    {
      description: 'the payout is on record for the claim',
      read: payoutsRead,
      expect: payoutOnRecord,
    },
  ],
  idempotent: false,
  reconcile: { read: payoutsRead, found: payoutOnRecord },
  compensate: {
    tool: 'cancel_payout',
    args: { payout_id: { $ref: 'payout.payout_id' }, reason: 'claim withdrawn by the employee' },
  },
};

const claimPaid: Predicate = { path: 'fresh.status', op: 'eq', value: 'paid' };

/** Close the claim as paid, with the comment the employee sees. */
export function markPaid(comment: string): OperationInput {
  return {
    id: 'mark',
    description: 'Mark the claim paid',
    tool: 'mark_claim',
    kind: 'write',
    args: { claim_id: { $ref: 'input.claim_id' }, status: 'paid', comment },
    postconditions: [
      { description: 'the claim shows as paid', read: claimRead, expect: claimPaid },
    ],
    idempotent: true,
    reconcile: { read: claimRead, found: claimPaid },
  };
}

/** The run may report success only once the claim reads as paid. */
export const claimReadsPaid = [
  { description: 'the claim is paid', read: claimRead, expect: claimPaid },
];

/** `exp_<n>` sits at index n − 1 of the world's claims, whatever the seed. */
function claimPath(claimId: string): string {
  return `world.claims.${Number(claimId.slice(4)) - 1}`;
}

/**
 * One live payout of the claim's current amount, and the claim marked paid. The amount is read
 * from the world itself, since each trial seeds its own.
 */
export function paidInFull(claimId: string): Predicate {
  return {
    all: [
      {
        some: {
          path: 'world.payouts',
          where: {
            all: [
              { path: 'item.claim_id', op: 'eq', value: claimId },
              { path: 'item.status', op: 'eq', value: 'sent' },
              {
                path: 'item.amount_cents',
                op: 'eq',
                value: { $ref: `${claimPath(claimId)}.amount_cents` },
              },
            ],
          },
        },
      },
      { path: `${claimPath(claimId)}.status`, op: 'eq', value: 'paid' },
    ],
  };
}

/** No payout of the claim stands (none sent, or every one recalled), and the claim is still open. */
export function notPaid(claimId: string): Predicate {
  return {
    all: [
      {
        not: {
          some: {
            path: 'world.payouts',
            where: {
              all: [
                { path: 'item.claim_id', op: 'eq', value: claimId },
                { path: 'item.status', op: 'eq', value: 'sent' },
              ],
            },
          },
        },
      },
      { path: `${claimPath(claimId)}.status`, op: 'eq', value: 'approved' },
    ],
  };
}
