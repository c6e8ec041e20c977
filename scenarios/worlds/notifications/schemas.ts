import { z } from 'zod';

/**
 * The notifications world's tool contract, snake_case as a messaging provider's API would name
 * it. Schemas stay permissive where the world itself gives a typed refusal (a template sent on
 * the wrong channel, a `send_at` that is not a time, an unknown recipient are refusals from the
 * world, not schema rejections), so agents see the error class.
 */
export const channelSchema = z.enum(['email', 'sms']);
export const serviceAreaSchema = z.enum(['Riverside', 'Hillcrest', 'Old Town']);
/** `bounced`: accepted, then refused by the recipient's mail server — the customer never got it. */
export const messageStatusSchema = z.enum(['scheduled', 'sent', 'bounced', 'cancelled']);

export const consentSchema = z.object({
  recipient_id: z.string(),
  email: z.boolean(),
  sms: z.boolean(),
  updated_at: z.string(),
  source: z.string(),
});

export const recipientSchema = z.object({
  recipient_id: z.string(),
  name: z.string(),
  first_name: z.string(),
  email: z.string(),
  phone: z.string(),
  service_area: serviceAreaSchema,
  consent: z.object({ email: z.boolean(), sms: z.boolean() }),
  appointment: z
    .object({
      appointment_id: z.string(),
      starts_at: z.string(),
      window: z.string(),
      technician: z.string(),
      address: z.string(),
    })
    .nullable(),
  overdue_invoice: z
    .object({
      invoice_id: z.string(),
      amount_cents: z.number().int(),
      currency: z.string(),
      due_date: z.string(),
    })
    .nullable(),
  security_event: z
    .object({
      event_id: z.string(),
      kind: z.string(),
      at: z.string(),
      device: z.string(),
      location: z.string(),
    })
    .nullable(),
});

/** A recipient as an audience query lists them: contact and consent, nothing else. */
export const recipientSummarySchema = z.object({
  recipient_id: z.string(),
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  service_area: serviceAreaSchema,
  consent: z.object({ email: z.boolean(), sms: z.boolean() }),
  has_overdue_invoice: z.boolean(),
});

export const templateSchema = z.object({
  template_id: z.string(),
  channel: channelSchema,
  name: z.string(),
  category: z.string(),
  subject: z.string().nullable(),
  body: z.string(),
  updated_by: z.string(),
  updated_at: z.string(),
});

export const incidentSchema = z.object({
  incident_id: z.string(),
  service_area: serviceAreaSchema,
  status: z.enum(['investigating', 'identified', 'resolved']),
  title: z.string(),
  summary: z.string(),
  started_at: z.string(),
  eta: z.string().nullable(),
  /** Customers in the incident's service area. */
  affected_customers: z.number().int(),
});

export const messageSchema = z.object({
  message_id: z.string(),
  channel: channelSchema,
  recipient_id: z.string(),
  /** The address or number the provider sent to. */
  to: z.string(),
  template_id: z.string(),
  /** What the message is about (an incident, an appointment, a billing run …), as the sender named it. */
  ref: z.string(),
  subject: z.string().nullable(),
  body: z.string(),
  status: messageStatusSchema,
  created_at: z.string(),
  /** When it went, or goes, out. */
  deliver_at: z.string(),
  batch_id: z.string().nullable(),
  /** Whether the recipient had consented to this channel when the message was accepted. */
  consent_at_send: z.boolean(),
});

export const getRecipientInput = z.object({ recipient_id: z.string() });
export const getConsentInput = z.object({ recipient_id: z.string() });
export const listRecipientsInput = z.object({
  service_area: serviceAreaSchema.optional(),
  /** Only customers with an unpaid invoice past its due date. */
  overdue_only: z.boolean().optional(),
  /** Only customers who accept messages on this channel. */
  consented_on: channelSchema.optional(),
});
export const listRecipientsOutput = z.object({
  count: z.number().int(),
  /** The ids of the customers listed, in order: the audience to hand to `send_bulk`. */
  recipient_ids: z.array(z.string()),
  recipients: z.array(recipientSummarySchema),
});
export const getTemplateInput = z.object({ template_id: z.string() });
export const getIncidentInput = z.object({ incident_id: z.string() });

export const sendInput = z.object({
  recipient_id: z.string(),
  template_id: z.string(),
  ref: z.string().min(1),
  /** ISO time to deliver at instead of now; scheduled messages can be cancelled until then. */
  send_at: z.string().optional(),
});
export const sendBulkInput = z.object({
  channel: channelSchema,
  template_id: z.string(),
  ref: z.string().min(1),
  recipient_ids: z.array(z.string()).min(1).max(100),
});
export const sendBulkOutput = z.object({
  batch_id: z.string(),
  channel: channelSchema,
  template_id: z.string(),
  ref: z.string(),
  count: z.number().int(),
  message_ids: z.array(z.string()),
});
export const findSentInput = z.object({
  template_id: z.string(),
  ref: z.string().optional(),
  recipient_id: z.string().optional(),
  channel: channelSchema.optional(),
});
export const findSentOutput = z.object({
  /** True when at least one matching message went or goes out: not cancelled, not bounced. */
  sent: z.boolean(),
  /** Matching messages that went or go out: not cancelled, not bounced. */
  count: z.number().int(),
  messages: z.array(messageSchema),
});
export const cancelMessageInput = z.object({ message_id: z.string() });

export type ChannelName = z.infer<typeof channelSchema>;
export type MessageStatus = z.infer<typeof messageStatusSchema>;
export type ConsentView = z.infer<typeof consentSchema>;
export type RecipientView = z.infer<typeof recipientSchema>;
export type RecipientSummary = z.infer<typeof recipientSummarySchema>;
export type TemplateView = z.infer<typeof templateSchema>;
export type IncidentView = z.infer<typeof incidentSchema>;
export type MessageView = z.infer<typeof messageSchema>;
export type BulkView = z.infer<typeof sendBulkOutput>;
export type FindSentView = z.infer<typeof findSentOutput>;
