import { defineScenario } from '../../scenario.js';
import {
  checkPolicy,
  claimReadsPaid,
  expenseContract,
  markPaid,
  paidInFull,
  payClaim,
  readClaim,
} from './common.js';
import { effectCount } from '../predicates.js';

const CLAIM = 'exp_1';

/** The everyday case: a lunch under the caps and the threshold, paid and closed with no one in the loop. */
export const teamLunch = defineScenario({
  id: 'expenses/team-lunch',
  title: 'Reimburse a working lunch within policy and close the claim',
  workflowClass: 'expense-reimbursement',
  tier: 'low',
  world: { name: 'expenses', seed: 23 },
  input: { claim_id: CLAIM },
  contract: expenseContract({
    claim: CLAIM,
    objective: `Reimburse expense claim ${CLAIM} (a working lunch for two, manager-approved) if it is within policy, then mark it paid.`,
  }),
  blueprint: {
    id: 'reimburse-claim',
    version: '1',
    operations: [
      readClaim,
      checkPolicy,
      payClaim,
      markPaid('Reimbursed in full by ACH; expect it in 2 business days.'),
    ],
    completion: claimReadsPaid,
  },
  expected: {
    state: 'completed',
    world: { all: [paidInFull(CLAIM), effectCount(2)] },
  },
  faultPlans: [
    {
      id: 'payout-delivered-twice',
      description:
        'the network delivers the payout request to the payments rail twice: with the key honoured the employee is paid once',
      faults: [
        { kind: 'duplicate-delivery', trigger: { on: 'call', tool: 'issue_payout', nth: 1 } },
      ],
    },
    {
      id: 'payout-timeout',
      description:
        'the payout request times out before it reaches the rail: the outcome is unknown, so settle it (same key, or ask get_payouts) before paying again',
      faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'issue_payout', nth: 1 } }],
    },
    {
      id: 'payout-arrives-late',
      description:
        'the payout request reaches the rail two minutes late, after the agent gave up on it: the resend and the late original must still make one payout',
      faults: [{ kind: 'late-reply', trigger: { on: 'call', tool: 'issue_payout', nth: 1 } }],
    },
    {
      id: 'payouts-report-empty',
      description:
        'the payouts report comes back empty right after the transfer: a payout that cannot be verified is a stop for a person, not a reason to pay again or to mark the claim paid',
      faults: [
        {
          kind: 'missing-evidence',
          trigger: { on: 'call', tool: 'get_payouts', nth: 1 },
          tool: 'get_payouts',
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'verification-failed',
        world: {
          all: [
            {
              some: {
                path: 'world.payouts',
                where: {
                  all: [
                    { path: 'item.claim_id', op: 'eq', value: CLAIM },
                    { path: 'item.status', op: 'eq', value: 'sent' },
                  ],
                },
              },
            },
            { path: 'world.claims.0.status', op: 'eq', value: 'approved' },
            effectCount(1),
          ],
        },
      },
    },
  ],
  tags: ['happy-path', 'payout'],
});
