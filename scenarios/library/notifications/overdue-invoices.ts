import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { effectCount, hasRecord } from '../predicates.js';
import {
  bulkApproval,
  listAudience,
  notifyContract,
  readTemplate,
  sendToAudience,
} from './common.js';

const TEMPLATE = 'tpl_invoice_overdue';
const BILLING_RUN = 'dunning-2025-03-14';
const audienceQuery = { overdue_only: true, consented_on: 'email' };

const noticeTo = (ids: readonly string[], not: readonly string[] = []): Predicate => ({
  all: [
    ...ids.map((id) =>
      hasRecord('world.messages', { recipient_id: id, template_id: TEMPLATE, ref: BILLING_RUN }),
    ),
    ...not.map((id) => ({ not: hasRecord('world.messages', { recipient_id: id }) })),
    { path: 'world.messages.length', op: 'eq', value: ids.length },
  ],
});

/**
 * The weekly dunning run: an overdue-invoice email to each customer with an unpaid invoice past
 * its due date. Three customers, so no approval; no keys, so a lost reply or a crash right
 * after the send is settled by asking the provider; and a customer who pays meanwhile must not
 * be chased.
 */
export const overdueInvoices = defineScenario({
  id: 'notifications/overdue-invoices',
  title: 'Email an overdue-invoice notice to every customer with an unpaid invoice',
  workflowClass: 'billing-notice',
  tier: 'medium',
  world: { name: 'notifications', seed: 37 },
  input: { billing_run: BILLING_RUN },
  contract: notifyContract({
    objective: `Billing run ${BILLING_RUN}: email the overdue-invoice notice once to every customer who has an overdue invoice and accepts email, and to nobody who has paid.`,
    tools: {
      get_template: { risk: 'read', resources: { template_id: [TEMPLATE] } },
      list_recipients: { risk: 'read' },
      send_bulk: {
        risk: 'medium',
        resources: { channel: ['email'], template_id: [TEMPLATE], ref: [BILLING_RUN] },
        approval: bulkApproval,
      },
      find_sent: { risk: 'read', resources: { template_id: [TEMPLATE], ref: [BILLING_RUN] } },
    },
    evidenceRequired: [
      {
        id: 'audience',
        description: 'the customers with an overdue invoice',
        operation: 'audience',
      },
    ],
  }),
  blueprint: {
    id: 'overdue-invoices',
    version: '1',
    operations: [
      readTemplate(TEMPLATE),
      listAudience(audienceQuery),
      sendToAudience({
        channel: 'email',
        templateId: TEMPLATE,
        ref: { $ref: 'input.billing_run' },
        audience: audienceQuery,
      }),
    ],
  },
  expected: {
    state: 'completed',
    world: { all: [noticeTo(['cus_4', 'cus_9', 'cus_11']), effectCount(1)] },
  },
  faultPlans: [
    {
      id: 'paid-meanwhile',
      description:
        'cus_9 pays between the audience query and the send: the fresh audience check must catch it, and cus_9 is not chased',
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'step', step: 3 },
          change: 'invoice-paid',
          params: { recipient_id: 'cus_9' },
        },
      ],
      expected: {
        state: 'completed',
        world: { all: [noticeTo(['cus_4', 'cus_11'], ['cus_9']), effectCount(1)] },
      },
    },
    {
      id: 'crash-after-send',
      description:
        'the process dies the instant the provider accepts the batch, before any reply: on restart, ask find_sent and do not send again',
      faults: [
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'notice' } },
      ],
    },
    {
      id: 'crash-after-saved',
      description:
        'the process dies right after the confirmed send is saved: resume from the checkpoint, do not send the batch again',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-result-saved', operation: 'notice' },
        },
      ],
    },
    {
      id: 'mailer-blip',
      description:
        'the provider fails the batch once with a transient error (nothing was queued): back off, then send',
      faults: [{ kind: 'transient', trigger: { on: 'call', tool: 'send_bulk', nth: 1 } }],
    },
  ],
  tags: ['no-idempotency', 'reconcile-by-query', 'crash'],
});
