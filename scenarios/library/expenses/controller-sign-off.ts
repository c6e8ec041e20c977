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

const CLAIM = 'exp_2';
const DAY = 86_400_000;

/** Nothing paid, nothing closed: what every safe stop of this scenario leaves behind. */
const untouched = { all: [notPaid(CLAIM), effectCount(0)] };

/** A flight above the $500 threshold: paid only once the controller signs off. */
export const controllerSignOff = defineScenario({
  id: 'expenses/controller-sign-off',
  title: 'Reimburse a flight above the threshold once the controller signs off',
  workflowClass: 'expense-reimbursement',
  tier: 'high',
  world: { name: 'expenses', seed: 23 },
  input: { claim_id: CLAIM },
  contract: expenseContract({
    claim: CLAIM,
    objective: `Reimburse expense claim ${CLAIM} (a customer-visit flight, manager-approved) once the controller signs off the payout, then mark it paid.`,
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 2 * 3_600_000, approver: CONTROLLER },
  },
  blueprint: {
    id: 'reimburse-claim',
    version: '1',
    operations: [
      readClaim,
      checkPolicy,
      payClaim,
      markPaid('Reimbursed in full by ACH after controller sign-off.'),
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
            where: { path: 'item.approved_by', op: 'eq', value: CONTROLLER },
          },
        },
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'controller-denies',
      description:
        'the controller refuses the sign-off (the trip was not pre-approved): stop, pay nothing, leave the claim open',
      faults: [
        {
          kind: 'approval-denied',
          trigger: { on: 'approval', nth: 1 },
          reason: 'trip was not pre-approved by the VP; resubmit with the approval attached',
        },
      ],
      expected: { state: 'failed', stopReason: 'approval-denied', world: untouched },
    },
    {
      id: 'controller-away',
      description: 'the controller answers three days later: wait for her, then pay exactly once',
      faults: [{ kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 3 * DAY }],
    },
    {
      id: 'crash-before-payout-saved',
      description:
        'the process dies after the rail confirmed the payout but before the result was saved: resume, settle it, do not pay twice',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'before-result-saved', operation: 'payout' },
        },
      ],
    },
    {
      id: 'credential-expires',
      description:
        "the desk's credential expires just as the payout is sent: stop and escalate, do not retry",
      faults: [
        { kind: 'expired-credential', trigger: { on: 'call', tool: 'issue_payout', nth: 1 } },
      ],
      expected: { state: 'blocked', stopReason: 'permission-lost', world: untouched },
    },
  ],
  tags: ['approval', 'happy-path', 'payout'],
});
