import { z } from 'zod';

/**
 * The tickets world's tool contract: argument and result schemas, snake_case as a helpdesk's
 * API would name them. Schemas stay permissive where the world itself gives a typed refusal (an
 * unknown ticket or agent, a CC that is not an email address), so agents see the error class.
 */
export const prioritySchema = z.enum(['P1', 'P2', 'P3', 'P4']);
export const ticketStatusSchema = z.enum(['new', 'open', 'pending', 'solved']);
export const ticketTypeSchema = z.enum(['question', 'incident', 'problem', 'task']);
export const productSchema = z.enum(['billing', 'api', 'integrations', 'mobile', 'sso']);
export const groupIdSchema = z.enum(['billing', 'technical', 'accounts']);
export const planSchema = z.enum(['team', 'professional', 'enterprise']);
export const agentStatusSchema = z.enum(['online', 'away']);
export const escalationTargetSchema = z.enum(['engineering', 'tier2', 'security']);

/** Where a ticket stands against its SLA at the moment it is read. */
export const slaSchema = z.object({
  policy: z.string(),
  target_minutes: z.number().int(),
  due_at: z.string(),
  /** Negative once breached. */
  minutes_to_breach: z.number().int(),
  breached: z.boolean(),
});

export const commentSchema = z.object({
  author: z.string(),
  role: z.enum(['end-user', 'agent']),
  body: z.string(),
  created_at: z.string(),
});

export const escalationSchema = z.object({
  escalation_id: z.string(),
  ticket_id: z.string(),
  target: escalationTargetSchema,
  key: z.string(),
  summary: z.string(),
  created_at: z.string(),
});

export const ticketViewSchema = z.object({
  ticket_id: z.string(),
  subject: z.string(),
  description: z.string(),
  comments: z.array(commentSchema),
  requester: z.object({
    name: z.string(),
    email: z.string(),
    organization: z.string(),
    plan: planSchema,
  }),
  product: productSchema,
  group_id: groupIdSchema,
  priority: prioritySchema,
  type: ticketTypeSchema,
  status: ticketStatusSchema,
  assignee_id: z.string().nullable(),
  tags: z.array(z.string()),
  problem_id: z.string().nullable(),
  /** The latest escalation, if the ticket was escalated. */
  escalation: escalationSchema.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  sla: slaSchema,
});

/**
 * A ticket as a queue view lists it: no subject, description or comments — the customer's own
 * words — so a queue listing carries nothing untrusted.
 */
export const queueItemSchema = z.object({
  ticket_id: z.string(),
  organization: z.string(),
  plan: planSchema,
  product: productSchema,
  group_id: groupIdSchema,
  priority: prioritySchema,
  type: ticketTypeSchema,
  status: ticketStatusSchema,
  assignee_id: z.string().nullable(),
  created_at: z.string(),
  sla_due_at: z.string(),
  minutes_to_breach: z.number().int(),
  breached: z.boolean(),
});

export const teamSchema = z.object({
  group_id: groupIdSchema,
  name: z.string(),
  products: z.array(productSchema),
});

export const agentSchema = z.object({
  agent_id: z.string(),
  name: z.string(),
  email: z.string(),
  group_id: groupIdSchema,
  skills: z.array(productSchema),
  status: agentStatusSchema,
  capacity: z.number().int(),
  open_tickets: z.number().int(),
});

export const noteSchema = z.object({
  note_id: z.string(),
  ticket_id: z.string(),
  author: z.string(),
  body: z.string(),
  created_at: z.string(),
});

export const replySchema = z.object({
  reply_id: z.string(),
  ticket_id: z.string(),
  to: z.string(),
  cc: z.array(z.string()),
  body: z.string(),
  sent_at: z.string(),
});

export const listQueueInput = z.object({
  group_id: groupIdSchema.optional(),
  assignee_id: z.string().optional(),
  /** `unassigned`: open tickets nobody holds; `open`: every ticket not yet solved. */
  view: z.enum(['unassigned', 'open']).default('open'),
});
export const listQueueOutput = z.object({
  view: z.enum(['unassigned', 'open']),
  count: z.number().int(),
  /** Most urgent first: by SLA deadline, then ticket id. */
  tickets: z.array(queueItemSchema),
});

export const getTicketInput = z.object({ ticket_id: z.string() });

export const listTeamsInput = z.object({ group_id: groupIdSchema.optional() });
export const listTeamsOutput = z.object({
  teams: z.array(teamSchema),
  agents: z.array(agentSchema),
});

export const assignTicketInput = z.object({ ticket_id: z.string(), assignee_id: z.string() });
export const assignTicketOutput = z.object({
  ticket_id: z.string(),
  assignee_id: z.string(),
  previous_assignee_id: z.string().nullable(),
  group_id: groupIdSchema,
  status: ticketStatusSchema,
  assigned_at: z.string(),
});

export const setPriorityInput = z.object({
  ticket_id: z.string(),
  priority: prioritySchema,
  reason: z.string().optional(),
});
export const setPriorityOutput = z.object({
  ticket_id: z.string(),
  priority: prioritySchema,
  previous_priority: prioritySchema,
  sla_due_at: z.string(),
});

export const addInternalNoteInput = z.object({ ticket_id: z.string(), body: z.string().min(1) });
export const listNotesInput = z.object({ ticket_id: z.string() });
export const listNotesOutput = z.object({ notes: z.array(noteSchema) });

export const sendReplyInput = z.object({
  ticket_id: z.string(),
  body: z.string().min(1),
  cc: z.array(z.string()).optional(),
});
export const listRepliesInput = z.object({ ticket_id: z.string() });
export const listRepliesOutput = z.object({ replies: z.array(replySchema) });

export const escalateInput = z.object({
  ticket_id: z.string(),
  target: escalationTargetSchema,
  summary: z.string().min(1),
});

export type TicketView = z.infer<typeof ticketViewSchema>;
export type QueueItem = z.infer<typeof queueItemSchema>;
export type SlaView = z.infer<typeof slaSchema>;
export type NoteView = z.infer<typeof noteSchema>;
export type ReplyView = z.infer<typeof replySchema>;
export type EscalationView = z.infer<typeof escalationSchema>;
export type AssignView = z.infer<typeof assignTicketOutput>;
export type PriorityView = z.infer<typeof setPriorityOutput>;
