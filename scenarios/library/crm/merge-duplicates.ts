import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { addNote, crmContract, findDuplicates, mergeDuplicate, readAccount } from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

const SURVIVOR = 'acc_7';
const DUPLICATE = 'acc_8';
const NOTE = `Merged duplicate account ${DUPLICATE} into this one.`;

/** Nothing happened: the duplicate is still active and no effect of the run is in the ledger. */
const notMerged: Predicate = {
  all: [hasRecord('world.accounts', { account_id: DUPLICATE, status: 'active' }), effectCount(0)],
};

/** The merge went through and was undone: the duplicate is active again, two effects. */
const unmerged: Predicate = {
  all: [hasRecord('world.accounts', { account_id: DUPLICATE, status: 'active' }), effectCount(2)],
};

/** Cleaning up a duplicate account: the merge is irreversible enough that a person approves it. */
export const mergeDuplicates = defineScenario({
  id: 'crm/merge-duplicates',
  title: 'Merge a duplicate account into the original after approval, then log a note',
  workflowClass: 'account-merge',
  tier: 'high',
  world: { name: 'crm', seed: 11 },
  input: { account_id: SURVIVOR, duplicate_id: DUPLICATE },
  contract: crmContract({
    accounts: [SURVIVOR, DUPLICATE],
    merge: { survivor: SURVIVOR, duplicate: DUPLICATE },
    compensateOnCancel: true,
    objective: `Merge the duplicate account ${DUPLICATE} into ${SURVIVOR} once a person approves, and note it on ${SURVIVOR}.`,
    evidenceRequired: [
      {
        id: 'duplicate-pair',
        description: 'the accounts sharing the survivor’s domain, before the merge',
        operation: 'duplicates',
      },
    ],
  }),
  operator: {
    approvals: { decision: 'grant', afterMs: 20 * 60_000, approver: 'sales-ops-lead' },
  },
  blueprint: {
    id: 'merge-duplicates',
    version: '1',
    operations: [readAccount, findDuplicates, mergeDuplicate, addNote(NOTE, SURVIVOR)],
    completion: [
      {
        description: 'the duplicate is merged into the survivor',
        read: { tool: 'get_account', args: { account_id: { $ref: 'input.duplicate_id' } } },
        expect: { path: 'fresh.merged_into', op: 'eq', value: { $ref: 'input.account_id' } },
      },
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        hasRecord('world.accounts', {
          account_id: DUPLICATE,
          status: 'merged',
          merged_into: SURVIVOR,
        }),
        hasRecord('world.notes', { account_id: SURVIVOR, text: NOTE }),
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'merge-refused',
      description: 'the sales-ops lead refuses the merge: stop without merging or noting anything',
      faults: [
        {
          kind: 'approval-denied',
          trigger: { on: 'approval', nth: 1 },
          reason: 'acc_8 is a separate subsidiary with its own contract',
        },
      ],
      expected: { state: 'failed', stopReason: 'approval-denied', world: notMerged },
    },
    {
      id: 'approval-overnight',
      description:
        'the lead answers four hours later: wait for the approval, then merge once, not before',
      faults: [
        {
          kind: 'approval-delayed',
          trigger: { on: 'approval', nth: 1 },
          delayMs: 4 * 3_600_000,
        },
      ],
    },
    {
      id: 'cancelled-after-merge',
      description:
        'the operator cancels right after the merge went through: stop and undo the merge, as the contract promises',
      faults: [{ kind: 'cancellation', trigger: { on: 'call', tool: 'merge_accounts', nth: 1 } }],
      expected: { state: 'compensated', stopReason: 'cancelled', world: unmerged },
    },
    {
      id: 'merge-ack-lost',
      description: 'the merge is applied but its reply never arrives: settle it before going on',
      faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'merge_accounts', nth: 1 } }],
    },
    {
      id: 'crash-after-merge',
      description: 'the process dies right after the merge is saved: resume, do not merge again',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-result-saved', operation: 'merge' },
        },
      ],
    },
    {
      id: 'crash-awaiting-approval',
      description:
        'the process dies while the merge awaits the lead overnight: the resumed run asks again, then merges once',
      faults: [
        {
          kind: 'approval-delayed',
          trigger: { on: 'approval', nth: 1 },
          delayMs: 4 * 3_600_000,
        },
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'awaiting-approval', operation: 'merge' },
        },
      ],
    },
  ],
  tags: ['approval', 'happy-path'],
});
