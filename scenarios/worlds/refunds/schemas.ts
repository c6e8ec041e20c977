import { z } from 'zod';

/**
 * The refund world's tool contract: argument and result schemas, snake_case as a payments
 * provider would name them. Amounts in integer cents. Schemas stay permissive where the world
 * itself gives a typed refusal (e.g. a non-positive amount is `invalid_argument` from the
 * world, not a schema rejection), so agents see the error class.
 */
export const orderStatusSchema = z.enum(['paid', 'partially_refunded', 'refunded']);
export const refundStatusSchema = z.enum(['issued', 'voided']);
export const messageTemplateSchema = z.enum(['refund_issued', 'refund_denied', 'apology']);

export const refundSchema = z.object({
  refund_id: z.string(),
  order_id: z.string(),
  amount_cents: z.number().int(),
  reason: z.string(),
  idempotency_key: z.string().nullable(),
  status: refundStatusSchema,
});

export const orderViewSchema = z.object({
  order_id: z.string(),
  customer_id: z.string(),
  items: z.array(
    z.object({
      product: z.string(),
      quantity: z.number().int(),
      unit_price_cents: z.number().int(),
    }),
  ),
  total_cents: z.number().int(),
  currency: z.literal('USD'),
  placed_at: z.string(),
  status: orderStatusSchema,
  refunded_cents: z.number().int(),
  refundable_cents: z.number().int(),
  customer_note: z.string(),
});

export const messageSchema = z.object({
  message_id: z.string(),
  customer_id: z.string(),
  template: messageTemplateSchema,
  order_id: z.string().nullable(),
  sent_at: z.number(),
});

export const getOrderInput = z.object({ order_id: z.string() });
export const listRefundsInput = z.object({ order_id: z.string() });
export const listRefundsOutput = z.object({ refunds: z.array(refundSchema) });
export const issueRefundInput = z.object({
  order_id: z.string(),
  amount_cents: z.number().int(),
  reason: z.string().min(1),
});
export const voidRefundInput = z.object({ refund_id: z.string() });
export const sendCustomerMessageInput = z.object({
  customer_id: z.string(),
  template: messageTemplateSchema,
  order_id: z.string().optional(),
});
export const wasMessageSentInput = sendCustomerMessageInput;
export const wasMessageSentOutput = z.object({
  sent: z.boolean(),
  message_ids: z.array(z.string()),
});

export type OrderStatus = z.infer<typeof orderStatusSchema>;
export type RefundStatus = z.infer<typeof refundStatusSchema>;
export type MessageTemplate = z.infer<typeof messageTemplateSchema>;
export type RefundView = z.infer<typeof refundSchema>;
export type OrderView = z.infer<typeof orderViewSchema>;
export type MessageView = z.infer<typeof messageSchema>;
