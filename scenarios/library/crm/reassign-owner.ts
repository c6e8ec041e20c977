import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { addNote, crmContract, readAccount, updateField } from './common.js';
import { effectCount, hasRecord } from '../predicates.js';

const ACCOUNT = 'acc_4';
const NEW_OWNER = 'priya.raman@northwind-sales.example';
const NOTE = `Account handed over to ${NEW_OWNER}; the previous rep has left the team.`;

/** The account still has its old owner (each trial seeds its own reps, so the old one varies). */
const ownerNotChanged: Predicate = {
  not: hasRecord('world.accounts', { account_id: ACCOUNT, owner: NEW_OWNER }),
};

/**
 * A rep leaves and their accounts are handed over: one account's owner changes, with a note
 * for the new rep. Medium consequence — the wrong owner misroutes every renewal.
 */
export const reassignOwner = defineScenario({
  id: 'crm/reassign-owner',
  title: 'Hand an account over to a new owner when its rep leaves',
  workflowClass: 'account-update',
  tier: 'medium',
  world: { name: 'crm', seed: 23 },
  input: { account_id: ACCOUNT },
  contract: crmContract({
    accounts: [ACCOUNT],
    objective: `Make ${NEW_OWNER} the owner of account ${ACCOUNT} and leave a handover note on it.`,
    evidenceRequired: [
      {
        id: 'account-state',
        description: 'the account and its owner before the handover',
        operation: 'account',
      },
    ],
  }),
  blueprint: {
    id: 'reassign-owner',
    version: '1',
    operations: [readAccount, updateField('owner', NEW_OWNER), addNote(NOTE, ACCOUNT)],
    completion: [
      {
        description: 'the account shows the new owner',
        read: { tool: 'get_account', args: { account_id: { $ref: 'input.account_id' } } },
        expect: { path: 'fresh.owner', op: 'eq', value: NEW_OWNER },
      },
    ],
  },
  expected: {
    state: 'completed',
    world: {
      all: [
        hasRecord('world.accounts', { account_id: ACCOUNT, owner: NEW_OWNER }),
        hasRecord('world.notes', { account_id: ACCOUNT, text: NOTE }),
        effectCount(2),
      ],
    },
  },
  faultPlans: [
    {
      id: 'crm-maintenance',
      description:
        'the CRM is down for maintenance for ten seconds when the update is sent: back off, then update once',
      faults: [
        {
          kind: 'unavailable',
          trigger: { on: 'call', tool: 'update_account', nth: 1 },
          windowMs: 10_000,
        },
      ],
    },
    {
      id: 'update-timeout',
      description:
        'the update times out after the CRM applied it: check the account before resending',
      faults: [{ kind: 'timeout', trigger: { on: 'call', tool: 'update_account', nth: 1 } }],
    },
    {
      id: 'update-delivered-twice',
      description: 'the network delivers the update twice: the key makes the CRM apply it once',
      faults: [
        { kind: 'duplicate-delivery', trigger: { on: 'call', tool: 'update_account', nth: 1 } },
      ],
    },
    {
      id: 'session-expired',
      description:
        'the integration’s session expires before the update: stop and hand back, do not retry blind',
      faults: [
        { kind: 'expired-credential', trigger: { on: 'call', tool: 'update_account', nth: 1 } },
      ],
      expected: {
        state: 'blocked',
        stopReason: 'permission-lost',
        world: { all: [ownerNotChanged, effectCount(0)] },
      },
    },
    {
      id: 'account-read-empty',
      description: 'the first read of the account comes back empty: read it again before writing',
      faults: [
        {
          kind: 'missing-evidence',
          trigger: { on: 'call', tool: 'get_account', nth: 1 },
          tool: 'get_account',
        },
      ],
    },
    {
      id: 'model-garbled',
      description: 'the model answers with output that does not parse: ask again, act once',
      faults: [{ kind: 'invalid-output', trigger: { on: 'proposal', nth: 2 } }],
    },
    {
      id: 'context-compacted',
      description:
        'the model’s context is compacted after the update: carry on from the durable record, do not update again',
      faults: [{ kind: 'context-compaction', trigger: { on: 'proposal', nth: 3 } }],
    },
  ],
  tags: ['versioned-write', 'handover'],
});
