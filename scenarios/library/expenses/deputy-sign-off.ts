import { defineScenario } from '../../scenario.js';
import {
  CONTROLLER,
  DEPUTY,
  checkPolicy,
  claimReadsPaid,
  expenseContract,
  markPaid,
  notPaid,
  paidInFull,
  payClaim,
  readClaim,
  readDelegations,
} from './common.js';
import { effectCount } from '../predicates.js';

const CLAIM = 'exp_5';

/**
 * The controller is on leave and has delegated her sign-off to the assistant controller: the
 * deputy's sign-off counts only while that delegation is on record.
 */
export const deputySignOff = defineScenario({
  id: 'expenses/deputy-sign-off',
  title: "Reimburse a hotel stay on the deputy's sign-off while the controller is on leave",
  workflowClass: 'expense-reimbursement',
  tier: 'high',
  world: {
    name: 'expenses',
    seed: 41,
    options: {
      delegations: [
        { approver: CONTROLLER, deputy: DEPUTY, from_day: -3, to_day: 11, reason: 'annual leave' },
      ],
    },
  },
  input: { claim_id: CLAIM },
  contract: expenseContract({
    claim: CLAIM,
    delegations: true,
    objective: `Reimburse expense claim ${CLAIM} (four hotel nights for a customer go-live, manager-approved). The controller is on leave; her deputy signs off payouts above $500 while the delegation is on record. Then mark the claim paid.`,
    evidenceRequired: [
      { id: 'claim-record', description: 'the claim and its receipt as read', operation: 'claim' },
      {
        id: 'policy-verdict',
        description: 'the policy check on the revision paid',
        operation: 'policy',
      },
      {
        id: 'delegation',
        description: "the delegation of the controller's sign-off on record",
        operation: 'delegations',
      },
    ],
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 3 * 3_600_000, approver: DEPUTY },
  },
  blueprint: {
    id: 'reimburse-claim-delegated',
    version: '1',
    operations: [
      readClaim,
      checkPolicy,
      readDelegations,
      payClaim,
      markPaid('Reimbursed by ACH; signed off by the deputy controller under delegation.'),
    ],
    completion: claimReadsPaid,
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        paidInFull(CLAIM),
        {
          some: {
            path: 'world.payouts',
            where: {
              all: [
                { path: 'item.approved_by', op: 'eq', value: DEPUTY },
                { path: 'item.on_behalf_of', op: 'eq', value: CONTROLLER },
              ],
            },
          },
        },
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'payout-ack-lost',
      description:
        'the rail applies the payout but its reply is lost: settle it before anything else, pay once',
      faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_payout', nth: 1 } }],
    },
    {
      id: 'delegation-withdrawn',
      description:
        'the controller comes back early and withdraws the delegation before her deputy signs: the sign-off carries no authority, the rail refuses it; stop and escalate, pay nothing',
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'time', atMs: 3_600_000 },
          change: 'delegation-withdrawn',
          params: { approver: CONTROLLER, deputy: DEPUTY },
        },
      ],
      expected: {
        state: 'blocked',
        stopReason: 'permission-lost',
        world: { all: [notPaid(CLAIM), effectCount(0)] },
      },
    },
  ],
  tags: ['approval', 'delegation', 'payout'],
});
