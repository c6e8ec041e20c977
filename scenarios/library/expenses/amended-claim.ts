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

const CLAIM = 'exp_3';

/** A hotel claim under the threshold, which the employee may amend while the desk works on it. */
export const amendedClaim = defineScenario({
  id: 'expenses/amended-claim',
  title: 'Reimburse a hotel stay at the amount the claim shows when it is paid',
  workflowClass: 'expense-reimbursement',
  tier: 'medium',
  world: { name: 'expenses', seed: 29 },
  input: { claim_id: CLAIM },
  contract: expenseContract({
    claim: CLAIM,
    objective: `Reimburse expense claim ${CLAIM} (two hotel nights for the marketing offsite, manager-approved) at its current amount if it is within policy, then mark it paid.`,
  }),
  blueprint: {
    id: 'reimburse-claim',
    version: '1',
    operations: [
      readClaim,
      checkPolicy,
      payClaim,
      markPaid('Reimbursed by ACH at the amount on the claim.'),
    ],
    completion: claimReadsPaid,
  },
  expected: {
    state: 'completed',
    world: { all: [paidInFull(CLAIM), effectCount(2)] },
  },
  faultPlans: [
    {
      id: 'amended-after-read',
      description:
        'the employee removes the parking from the claim after the desk read it: read it again and pay the new amount, never the old one',
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'step', step: 3 },
          change: 'claim-amended',
          params: { claim_id: CLAIM },
        },
      ],
    },
    {
      id: 'crash-after-payout-applied',
      description:
        'the process dies the instant the rail applied the payout, before any reply: resume, settle it, do not pay twice',
      faults: [
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'payout' } },
      ],
    },
    {
      id: 'policy-check-flaky',
      description: 'the policy service fails once: back off, then check again',
      faults: [{ kind: 'transient', trigger: { on: 'call', tool: 'check_policy', nth: 1 } }],
    },
  ],
  tags: ['happy-path', 'versioned-write', 'payout'],
});
