import type { OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate, ValueExpr } from '../../../runtime/predicate.js';

/**
 * Shared pieces of the notifications scenarios: the customer-comms desk's contract and the
 * usual operations. The provider takes no idempotency keys, so every send is marked
 * `idempotent: false` and carries a `find_sent` reconciliation: after a lost reply the runtime
 * asks whether the message went out before it sends again, and stops for a person when it
 * cannot ask.
 */

export const NOTIFY_BUDGETS = {
  toolCalls: 40,
  retries: 8,
  externalWrites: 6,
  virtualTimeMs: 6 * 3_600_000,
};

/** More recipients than this in one bulk send need a person's approval (the provider agrees). */
export const BULK_APPROVAL_THRESHOLD = 5;

/** Send a bulk message only with an approval when it reaches more than the threshold. */
export const bulkApproval: ContractInput['authority']['tools'][string]['approval'] = {
  when: { path: 'args.recipient_ids.length', op: 'gt', value: BULK_APPROVAL_THRESHOLD },
};

/** The desk's contract for one piece of customer communication. */
export function notifyContract(options: {
  objective: string;
  tools: ContractInput['authority']['tools'];
  decisionBoundary?: ContractInput['decisionBoundary'];
  evidenceRequired?: ContractInput['evidenceRequired'];
  budgets?: Partial<typeof NOTIFY_BUDGETS>;
}): ContractInput {
  return {
    version: '1',
    objective: options.objective,
    decisionBoundary: options.decisionBoundary ?? 'execute',
    authority: { tools: options.tools },
    autonomy: 'bounded',
    ...(options.evidenceRequired ? { evidenceRequired: options.evidenceRequired } : {}),
    budgets: { ...NOTIFY_BUDGETS, ...options.budgets },
  };
}

/** Read the customer the run is about (`input.recipient_id`) as operation `customer`. */
export const readCustomer: OperationInput = {
  id: 'customer',
  description: 'Read the customer and what is open on their account',
  tool: 'get_recipient',
  kind: 'read',
  args: { recipient_id: { $ref: 'input.recipient_id' } },
};

/** Read the customer's consent as operation `consent`. */
export const readConsent: OperationInput = {
  id: 'consent',
  description: "Check the customer's consent per channel",
  tool: 'get_consent',
  kind: 'read',
  args: { recipient_id: { $ref: 'input.recipient_id' } },
};

/** Read the incident the run is about (`input.incident_id`) as operation `incident`. */
export const readIncident: OperationInput = {
  id: 'incident',
  description: 'Read the incident on the status page',
  tool: 'get_incident',
  kind: 'read',
  args: { incident_id: { $ref: 'input.incident_id' } },
};

/** Read a template as operation `template`; its body is untrusted content. */
export function readTemplate(templateId: string): OperationInput {
  return {
    id: 'template',
    description: 'Read the message template',
    tool: 'get_template',
    kind: 'read',
    args: { template_id: templateId },
  };
}

/** The audience query a bulk send is built from, as operation `audience`. */
export function listAudience(args: Record<string, ValueExpr>): OperationInput {
  return {
    id: 'audience',
    description: 'List the customers to notify',
    tool: 'list_recipients',
    kind: 'read',
    args,
  };
}

/** A message for exactly this customer, template and matter was accepted and not cancelled. */
const oneSent: Predicate = { path: 'fresh.sent', op: 'eq', value: true };

/**
 * The provider accepted a message for this customer, template and matter, whatever became of
 * it: one that bounced (a mailbox closed meanwhile) was still sent, and sending again would
 * make a second. What reconciliation asks; `sent` alone leaves bounces out.
 */
const oneAccepted: Predicate = { path: 'fresh.messages.length', op: 'gt', value: 0 };

/**
 * Send one message to the customer the run is about. The precondition reads consent fresh
 * (a customer who replied STOP a minute ago must not get a text), and a lost reply is settled
 * by asking `find_sent` for this customer, template and matter.
 */
export function sendToCustomer(options: {
  id: string;
  description: string;
  channel: 'email' | 'sms';
  templateId: string;
  ref: ValueExpr;
}): OperationInput {
  const { channel, templateId, ref } = options;
  const query = {
    tool: 'find_sent',
    args: {
      template_id: templateId,
      recipient_id: { $ref: 'input.recipient_id' },
      ref,
      channel,
    },
  };
  return {
    id: options.id,
    description: options.description,
    tool: channel === 'email' ? 'send_email' : 'send_sms',
    kind: 'write',
    args: { recipient_id: { $ref: 'input.recipient_id' }, template_id: templateId, ref },
    preconditions: [
      {
        description: `the customer still accepts ${channel}`,
        read: { tool: 'get_consent', args: { recipient_id: { $ref: 'input.recipient_id' } } },
        expect: { path: `fresh.${channel}`, op: 'eq', value: true },
      },
    ],
    postconditions: [
      { description: 'the provider lists the message', read: query, expect: oneSent },
    ],
    // No keys at this provider: a resend is a second message, so ambiguity is settled by query.
    idempotent: false,
    reconcile: { read: query, found: oneAccepted },
  };
}

/**
 * Send one template about one matter to the audience listed by operation `audience`. The
 * precondition lists the audience again and requires the same ids (someone who paid or opted
 * out meanwhile changes the list, and the send is rebuilt); a lost reply is settled by asking
 * `find_sent` whether the whole batch is there.
 */
export function sendToAudience(options: {
  channel: 'email' | 'sms';
  templateId: string;
  ref: ValueExpr;
  audience: Record<string, ValueExpr>;
}): OperationInput {
  const { channel, templateId, ref } = options;
  const query = { tool: 'find_sent', args: { template_id: templateId, ref, channel } };
  const everyone = { $ref: 'action.args.recipient_ids.length' };
  // Verified: every message of the batch went out. Reconciled: every message was accepted,
  // bounced ones included (`count` leaves them out), so a bounce does not make a second batch.
  const batchThere: Predicate = { path: 'fresh.count', op: 'gte', value: everyone };
  const batchAccepted: Predicate = { path: 'fresh.messages.length', op: 'gte', value: everyone };
  return {
    id: 'notice',
    description: 'Send the notice to the audience',
    tool: 'send_bulk',
    kind: 'write',
    args: {
      channel,
      template_id: templateId,
      ref,
      recipient_ids: { $ref: 'audience.recipient_ids' },
    },
    preconditions: [
      {
        description: 'the audience is still the one listed',
        read: { tool: 'list_recipients', args: options.audience },
        expect: { path: 'fresh.recipient_ids', op: 'eq', value: { $ref: 'args.recipient_ids' } },
      },
    ],
    postconditions: [
      { description: 'the provider lists every message', read: query, expect: batchThere },
    ],
    idempotent: false,
    reconcile: { read: query, found: batchAccepted },
  };
}
