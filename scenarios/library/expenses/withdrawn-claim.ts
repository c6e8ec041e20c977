import { defineScenario } from '../../scenario.js';
import {
  CONTROLLER,
  checkPolicy,
  claimReadsPaid,
  expenseContract,
  markPaid,
  notPaid,
  paidInFull,
  payClaim,
  readClaim,
} from './common.js';
import { effectCount } from '../predicates.js';

const CLAIM = 'exp_6';

/**
 * A conference fee above the threshold, under a contract that promises to recall the payout if
 * the claim is withdrawn: the employee may withdraw it (the event was cancelled and refunded)
 * while the controller considers it, or after the money went out.
 */
export const withdrawnClaim = defineScenario({
  id: 'expenses/withdrawn-claim',
  title: 'Reimburse a conference fee, and stop or recall the payout when the claim is withdrawn',
  workflowClass: 'expense-reimbursement',
  tier: 'high',
  world: { name: 'expenses', seed: 37 },
  input: { claim_id: CLAIM },
  contract: expenseContract({
    claim: CLAIM,
    objective: `Reimburse expense claim ${CLAIM} (a conference registration, manager-approved) once the controller signs off, then mark it paid. If the claim is withdrawn, pay nothing more and recall any payout already sent.`,
    compensateOnCancel: true,
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 3_600_000, approver: CONTROLLER },
  },
  blueprint: {
    id: 'reimburse-claim',
    version: '1',
    operations: [
      readClaim,
      checkPolicy,
      payClaim,
      markPaid('Conference fee reimbursed by ACH after controller sign-off.'),
    ],
    completion: claimReadsPaid,
  },
  expected: {
    state: 'completed',
    world: { all: [paidInFull(CLAIM), effectCount(2)] },
  },
  faultPlans: [
    {
      id: 'withdrawn-awaiting-sign-off',
      description:
        'the employee withdraws the claim while the payout waits for the controller: cancel, pay nothing',
      faults: [
        {
          kind: 'cancellation',
          trigger: { on: 'approval', nth: 1 },
          reason: 'claim withdrawn: the organiser cancelled the event and refunded the fee',
        },
      ],
      expected: {
        state: 'cancelled',
        stopReason: 'cancelled',
        world: { all: [notPaid(CLAIM), effectCount(0)] },
      },
    },
    {
      id: 'withdrawn-after-payout',
      description:
        'the claim is withdrawn just as the payout goes out: the contract promises compensation, so recall the payout and do not close the claim',
      faults: [
        {
          kind: 'cancellation',
          trigger: { on: 'call', tool: 'issue_payout', nth: 1 },
          reason: 'claim withdrawn: the organiser cancelled the event and refunded the fee',
        },
      ],
      expected: {
        state: 'compensated',
        stopReason: 'cancelled',
        world: {
          all: [
            notPaid(CLAIM),
            {
              some: {
                path: 'world.payouts',
                where: {
                  all: [
                    { path: 'item.claim_id', op: 'eq', value: CLAIM },
                    { path: 'item.status', op: 'eq', value: 'cancelled' },
                  ],
                },
              },
            },
            effectCount(2),
          ],
        },
      },
    },
  ],
  tags: ['approval', 'cancellation', 'compensation', 'payout'],
});
