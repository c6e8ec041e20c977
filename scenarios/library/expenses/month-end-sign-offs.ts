import type { OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import {
  CONTROLLER,
  checkPolicy,
  expenseContract,
  markPaid,
  notPaid,
  paidInFull,
  payClaim,
  readClaim,
} from './common.js';
import { effectCount } from '../predicates.js';

const FLIGHT = 'exp_2';
const HOTEL = 'exp_5';
const CLAIMS = [FLIGHT, HOTEL];
const HOUR = 3_600_000;

/**
 * One claim's steps of the usual reimbursement (read, check, pay, mark), for a run that handles
 * two: the claim id is written in, and each operation and every reference to an earlier result
 * takes the claim's prefix (`flight-policy.reimbursable_cents`), so the two claims' results
 * never mix.
 */
function forClaim(op: OperationInput, claimId: string, prefix: string): OperationInput {
  const own = new Set(['claim', 'policy', 'payout']);
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && Object.keys(value).length === 1) {
      if (ref === 'input.claim_id') return claimId;
      const [head = '', ...rest] = ref.split('.');
      return own.has(head) ? { $ref: [`${prefix}-${head}`, ...rest].join('.') } : value;
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v)]));
  };
  return { ...(rewrite(op) as OperationInput), id: `${prefix}-${op.id}` };
}

/** The claim's read, check, payout and close, as that claim's steps. */
function steps(
  claimId: string,
  prefix: string,
): Record<'read' | 'check' | 'pay' | 'mark', OperationInput> {
  const comment = 'Reimbursed in full by ACH after controller sign-off.';
  return {
    read: forClaim(readClaim, claimId, prefix),
    check: forClaim(checkPolicy, claimId, prefix),
    pay: forClaim(payClaim, claimId, prefix),
    mark: forClaim(markPaid(comment), claimId, prefix),
  };
}

const flight = steps(FLIGHT, 'flight');
const hotel = steps(HOTEL, 'hotel');

/** The desk's authority over both claims: the one-claim authority, widened to the two. */
function bothClaims(contract: ContractInput): ContractInput {
  const tools = Object.fromEntries(
    Object.entries(contract.authority.tools).map(([name, auth]) => [
      name,
      auth.resources && 'claim_id' in auth.resources
        ? { ...auth, resources: { ...auth.resources, claim_id: CLAIMS } }
        : auth,
    ]),
  );
  return { ...contract, authority: { ...contract.authority, tools } };
}

/** One live payout of the claim's full amount on record, the claim not yet closed. */
function paidOpen(claimId: string): Predicate {
  const index = Number(claimId.slice(4)) - 1;
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
                value: { $ref: `world.claims.${index}.amount_cents` },
              },
            ],
          },
        },
      },
      { path: `world.claims.${index}.status`, op: 'eq', value: 'approved' },
    ],
  };
}

const signedByController = {
  all: CLAIMS.map((claim) => ({
    some: {
      path: 'world.payouts',
      where: {
        all: [
          { path: 'item.claim_id', op: 'eq' as const, value: claim },
          { path: 'item.approved_by', op: 'eq' as const, value: CONTROLLER },
        ],
      },
    },
  })),
};

/**
 * Month-end: two claims above the $500 threshold, a flight and four hotel nights, each paid
 * only on its own controller sign-off — two approvals in one run, each single-use and each for
 * its own payout.
 */
export const monthEndSignOffs = defineScenario({
  id: 'expenses/month-end-sign-offs',
  title: 'Reimburse two claims above the threshold at month-end, each on its own sign-off',
  workflowClass: 'expense-reimbursement',
  tier: 'high',
  world: { name: 'expenses', seed: 53 },
  input: { claim_ids: CLAIMS },
  contract: bothClaims(
    expenseContract({
      claim: FLIGHT,
      objective: `Month-end close: reimburse expense claims ${FLIGHT} (a customer-visit flight) and ${HOTEL} (four hotel nights for a go-live), both manager-approved and above $500, each once the controller signs off its payout; mark each paid.`,
      evidenceRequired: [
        { id: 'flight-claim', description: 'the flight claim as read', operation: 'flight-claim' },
        {
          id: 'flight-policy',
          description: 'the policy check on the flight claim',
          operation: 'flight-policy',
        },
        { id: 'hotel-claim', description: 'the hotel claim as read', operation: 'hotel-claim' },
        {
          id: 'hotel-policy',
          description: 'the policy check on the hotel claim',
          operation: 'hotel-policy',
        },
      ],
    }),
  ),
  operator: {
    approvals: { decision: 'grant', afterMs: 2 * HOUR, approver: CONTROLLER },
  },
  blueprint: {
    id: 'month-end-reimbursements',
    version: '1',
    // The batch pays both, then closes both: the two sign-offs are the run's first two
    // approvals in any autonomy mode (supervised adds the closes after them).
    operations: [
      flight.read,
      flight.check,
      hotel.read,
      hotel.check,
      flight.pay,
      hotel.pay,
      flight.mark,
      hotel.mark,
    ],
    completion: CLAIMS.map((claim) => ({
      description: `${claim} is paid`,
      read: { tool: 'get_claim', args: { claim_id: claim } },
      expect: { path: 'fresh.status', op: 'eq', value: 'paid' },
    })),
  },
  expected: {
    state: 'completed',
    world: {
      all: [paidInFull(FLIGHT), paidInFull(HOTEL), signedByController, effectCount(4)],
    },
  },
  faultPlans: [
    {
      id: 'hotel-sign-off-refused',
      description:
        'the controller signs the flight off but refuses the hotel (the go-live was postponed): stop there — the flight stays paid (and open, for a person to close), the hotel unpaid and open',
      faults: [
        {
          kind: 'approval-denied',
          trigger: { on: 'approval', nth: 2 },
          reason: 'go-live moved to next quarter; resubmit the hotel with the new dates',
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'approval-denied',
        world: { all: [paidOpen(FLIGHT), notPaid(HOTEL), effectCount(1)] },
      },
    },
    {
      id: 'hotel-sign-off-next-day',
      description:
        'the second sign-off comes a day later: wait for it, then pay the hotel exactly once, under its own approval',
      faults: [
        { kind: 'approval-delayed', trigger: { on: 'approval', nth: 2 }, delayMs: 24 * HOUR },
      ],
    },
    {
      id: 'rail-throttled',
      description:
        'the payment rail rate-limits the hotel payout: wait out the retry-after, then send it with the approval it still holds',
      faults: [
        {
          kind: 'rate-limit',
          trigger: { on: 'call', tool: 'issue_payout', nth: 2 },
          retryAfterMs: 90_000,
        },
      ],
    },
    {
      id: 'crash-after-flight-paid',
      description:
        'the process dies as the rail applies the flight payout: resume, settle the flight from the payouts report, do not pay it twice, and ask for the hotel sign-off',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-apply', operation: 'flight-payout' },
        },
      ],
    },
  ],
  tags: ['approval', 'multi-approval', 'payout'],
});
