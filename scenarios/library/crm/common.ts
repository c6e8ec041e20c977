import type { OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate } from '../../../runtime/predicate.js';

/** Shared pieces of the CRM scenarios: the sales-ops desk's authority and the usual operations. */

export const CRM_BUDGETS = {
  toolCalls: 40,
  retries: 8,
  externalWrites: 6,
  virtualTimeMs: 6 * 3_600_000,
};

/**
 * What the desk may touch: reads, updates and notes on the named accounts, and — when a merge
 * is part of the job — merging the duplicate into the survivor, always with a person's approval.
 * Scopes are matched by argument name, so a merge is scoped by `survivor_id` and `duplicate_id`.
 */
export function crmAuthority(
  accounts: readonly string[],
  merge?: { survivor: string; duplicate: string },
): ContractInput['authority'] {
  const scoped = { account_id: [...accounts] };
  return {
    tools: {
      get_account: { risk: 'read', resources: scoped },
      list_notes: { risk: 'read', resources: scoped },
      update_account: { risk: 'medium', resources: scoped },
      add_note: { risk: 'low', resources: scoped },
      ...(merge
        ? {
            find_duplicates: { risk: 'read', resources: { account_id: [merge.survivor] } },
            merge_accounts: {
              risk: 'high',
              resources: { survivor_id: [merge.survivor], duplicate_id: [merge.duplicate] },
              approval: 'always',
            },
            unmerge_accounts: { risk: 'medium', resources: { duplicate_id: [merge.duplicate] } },
          }
        : {}),
    },
  };
}

/** The desk's contract for a piece of account work: its authority, budgets and bounded autonomy. */
export function crmContract(options: {
  accounts: readonly string[];
  objective: string;
  merge?: { survivor: string; duplicate: string };
  evidenceRequired?: ContractInput['evidenceRequired'];
  /** Undo confirmed writes (where the CRM offers an undo) when the run is cancelled. */
  compensateOnCancel?: boolean;
}): ContractInput {
  return {
    version: '1',
    objective: options.objective,
    decisionBoundary: 'execute',
    authority: crmAuthority(options.accounts, options.merge),
    autonomy: 'bounded',
    ...(options.evidenceRequired ? { evidenceRequired: options.evidenceRequired } : {}),
    ...(options.compensateOnCancel
      ? {
          recoveryPromise: {
            resumeFromCheckpoint: true,
            reconcileAmbiguous: true,
            compensateOnCancel: true,
          },
        }
      : {}),
    budgets: CRM_BUDGETS,
  };
}

/** Read the account the run is about (`input.account_id`) as operation `account`. */
export const readAccount: OperationInput = {
  id: 'account',
  description: 'Read the account',
  tool: 'get_account',
  kind: 'read',
  args: { account_id: { $ref: 'input.account_id' } },
};

/** A fresh read of the account the run is about. */
const accountRead = { tool: 'get_account', args: { account_id: { $ref: 'input.account_id' } } };

/** A fresh read of the duplicate a merge is about. */
const duplicateRead = {
  tool: 'get_account',
  args: { account_id: { $ref: 'input.duplicate_id' } },
};

/** The duplicate reads as merged into the account the run is about. */
const mergedIntoSurvivor: Predicate = {
  all: [
    { path: 'fresh.status', op: 'eq', value: 'merged' },
    { path: 'fresh.merged_into', op: 'eq', value: { $ref: 'input.account_id' } },
  ],
};

/** List the other active accounts on the same domain, as operation `duplicates`. */
export const findDuplicates: OperationInput = {
  id: 'duplicates',
  description: 'List the accounts that share its domain',
  tool: 'find_duplicates',
  kind: 'read',
  args: { account_id: { $ref: 'input.account_id' } },
};

/**
 * Set one field of the account, naming the version the run read. Keys are honoured, so a retry
 * with the same key is safe; a stale version is refused, so the precondition reads it fresh.
 */
export function updateField(
  field: 'phone' | 'email' | 'owner' | 'tier',
  value: string,
): OperationInput {
  return {
    id: 'update',
    description: `Set the account's ${field}`,
    tool: 'update_account',
    kind: 'write',
    args: {
      account_id: { $ref: 'input.account_id' },
      field,
      value,
      expected_version: { $ref: 'account.version' },
    },
    preconditions: [
      {
        description: 'nobody changed the account since it was read',
        read: accountRead,
        expect: { path: 'fresh.version', op: 'eq', value: { $ref: 'args.expected_version' } },
      },
    ],
    postconditions: [
      {
        description: `the account shows the new ${field}`,
        read: accountRead,
        expect: { path: `fresh.${field}`, op: 'eq', value: { $ref: 'action.args.value' } },
      },
    ],
    idempotent: true,
    reconcile: {
      read: accountRead,
      found: { path: `fresh.${field}`, op: 'eq', value: { $ref: 'action.args.value' } },
    },
  };
}

/** A note with exactly this text is on the account. */
function noteFound(text: string): Predicate {
  return {
    some: {
      path: 'fresh.notes',
      where: { path: 'item.text', op: 'eq', value: text },
    },
  };
}

/**
 * Log a note on an account. Notes have no keys, so an ambiguous reply is settled by listing the
 * account's notes before adding it again.
 */
export function addNote(text: string, accountId: string | { $ref: string }): OperationInput {
  return {
    id: 'note',
    description: 'Log what was done on the account',
    tool: 'add_note',
    kind: 'write',
    args: { account_id: accountId, text },
    // A note acknowledged is not a note on the account until a fresh read shows it.
    postconditions: [
      {
        description: 'the note is on the account',
        read: { tool: 'list_notes', args: { account_id: accountId } },
        expect: noteFound(text),
      },
    ],
    idempotent: false,
    reconcile: {
      read: { tool: 'list_notes', args: { account_id: accountId } },
      found: noteFound(text),
    },
  };
}

/**
 * Merge the duplicate (`input.duplicate_id`) into the account the run is about; the world asks
 * for an approval every time. The precondition checks the two are still the same company, and
 * an unmerge undoes it.
 */
export const mergeDuplicate: OperationInput = {
  id: 'merge',
  description: 'Merge the duplicate into the surviving account',
  tool: 'merge_accounts',
  kind: 'write',
  args: {
    survivor_id: { $ref: 'input.account_id' },
    duplicate_id: { $ref: 'input.duplicate_id' },
  },
  preconditions: [
    {
      description: 'the duplicate is still the same company as the survivor',
      read: duplicateRead,
      expect: { path: 'fresh.domain', op: 'eq', value: { $ref: 'account.domain' } },
    },
  ],
  postconditions: [
    {
      description: 'the duplicate is merged into the survivor',
      read: duplicateRead,
      expect: mergedIntoSurvivor,
    },
  ],
  // The CRM honours the key, but the approval token is single-use: a resend would present one
  // already consumed, so an unknown outcome is settled by reading the duplicate instead.
  idempotent: false,
  reconcile: { read: duplicateRead, found: mergedIntoSurvivor },
  compensate: {
    tool: 'unmerge_accounts',
    args: { duplicate_id: { $ref: 'input.duplicate_id' } },
  },
};
