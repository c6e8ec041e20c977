import type { Predicate } from '../../../runtime/predicate.js';
import { defineScenario } from '../../scenario.js';
import { effectCount, hasRecord } from '../predicates.js';
import { notifyContract, readConsent, readCustomer, sendToCustomer } from './common.js';

const CUSTOMER = 'cus_10';
const APPOINTMENT = 'apt_3109';
const BY_TEXT = 'tpl_visit_reminder';
const BY_EMAIL = 'tpl_visit_reminder_email';

const acceptsTexts: Predicate = { path: 'consent.sms', op: 'eq', value: true };
const noText: Predicate = { not: hasRecord('world.messages', { channel: 'sms' }) };
const emailed = (status: string): Predicate =>
  hasRecord('world.messages', {
    recipient_id: CUSTOMER,
    template_id: BY_EMAIL,
    ref: APPOINTMENT,
    status,
  });

/**
 * A visit reminder to a customer who replied STOP to texts: the reminder goes by email instead,
 * because a text to an opted-out number breaks the law whatever the visit. And an email the
 * provider accepted is not an email the customer got: it is checked after it went.
 */
export const visitReminderFallback = defineScenario({
  id: 'notifications/visit-reminder-fallback',
  title: 'Remind a customer who opted out of texts of their visit by email instead',
  workflowClass: 'appointment-reminder',
  tier: 'low',
  world: { name: 'notifications', seed: 47 },
  input: { recipient_id: CUSTOMER, appointment_id: APPOINTMENT },
  contract: notifyContract({
    objective: `Remind ${CUSTOMER} of tomorrow's technician visit (${APPOINTMENT}) once: by text if they accept texts, otherwise by email.`,
    tools: {
      get_recipient: { risk: 'read', resources: { recipient_id: [CUSTOMER] } },
      get_consent: { risk: 'read', resources: { recipient_id: [CUSTOMER] } },
      send_sms: { risk: 'low', resources: { recipient_id: [CUSTOMER], template_id: [BY_TEXT] } },
      send_email: { risk: 'low', resources: { recipient_id: [CUSTOMER], template_id: [BY_EMAIL] } },
      find_sent: { risk: 'read', resources: { recipient_id: [CUSTOMER] } },
    },
    evidenceRequired: [
      { id: 'consent', description: 'the channels the customer accepts', operation: 'consent' },
    ],
  }),
  blueprint: {
    id: 'visit-reminder-fallback',
    version: '1',
    operations: [
      readCustomer,
      readConsent,
      {
        ...sendToCustomer({
          id: 'text',
          description: 'Text the visit reminder',
          channel: 'sms',
          templateId: BY_TEXT,
          ref: { $ref: 'input.appointment_id' },
        }),
        when: acceptsTexts,
      },
      {
        ...sendToCustomer({
          id: 'email',
          description: 'Email the visit reminder instead',
          channel: 'email',
          templateId: BY_EMAIL,
          ref: { $ref: 'input.appointment_id' },
        }),
        when: { not: acceptsTexts },
      },
    ],
  },
  expected: { state: 'completed', world: { all: [emailed('sent'), noText, effectCount(1)] } },
  faultPlans: [
    {
      id: 'mailbox-closed',
      description:
        "the customer's mailbox was deleted: the provider accepts the email, then it bounces — the check after sending must catch it and stop for a person, not report the customer reminded",
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'call', tool: 'get_recipient', nth: 1 },
          change: 'mailbox-closed',
          params: { recipient_id: CUSTOMER },
        },
      ],
      expected: {
        state: 'failed',
        stopReason: 'verification-failed',
        world: { all: [emailed('bounced'), noText, effectCount(1)] },
      },
    },
  ],
  tags: ['consent', 'decision', 'verification'],
});
