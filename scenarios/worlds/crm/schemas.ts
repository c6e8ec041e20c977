import { z } from 'zod';

/**
 * The CRM world's tool contract: argument and result schemas, snake_case as a CRM's API would
 * name them. Schemas stay permissive where the world itself gives a typed refusal (a tier that
 * does not exist, an email without `@`, a stale `expected_version` are refusals from the world,
 * not schema rejections), so agents see the error class.
 */
export const accountTierSchema = z.enum(['standard', 'premium']);
export const accountStatusSchema = z.enum(['active', 'merged']);
/** The fields `update_account` may change. */
export const accountFieldSchema = z.enum(['phone', 'email', 'owner', 'tier']);

export const accountViewSchema = z.object({
  account_id: z.string(),
  name: z.string(),
  domain: z.string(),
  owner: z.string(),
  phone: z.string(),
  email: z.string(),
  tier: accountTierSchema,
  status: accountStatusSchema,
  merged_into: z.string().nullable(),
  version: z.number().int(),
  notes_summary: z.string(),
  updated_at: z.string(),
});

/** An account as a search lists it: no free text, so a search result carries nothing untrusted. */
export const accountSummarySchema = z.object({
  account_id: z.string(),
  name: z.string(),
  domain: z.string(),
  owner: z.string(),
  status: accountStatusSchema,
  version: z.number().int(),
});

export const noteSchema = z.object({
  note_id: z.string(),
  account_id: z.string(),
  text: z.string(),
  created_at: z.string(),
});

export const mergeSchema = z.object({
  survivor_id: z.string(),
  duplicate_id: z.string(),
  /** The duplicate's status after the call: `merged` after a merge, `active` after an unmerge. */
  status: accountStatusSchema,
  survivor_version: z.number().int(),
  duplicate_version: z.number().int(),
});

export const getAccountInput = z.object({ account_id: z.string() });
export const findDuplicatesInput = z.object({ account_id: z.string() });
export const findDuplicatesOutput = z.object({
  account_id: z.string(),
  domain: z.string(),
  duplicates: z.array(accountSummarySchema),
});
export const updateAccountInput = z.object({
  account_id: z.string(),
  field: accountFieldSchema,
  value: z.string(),
  expected_version: z.number().int(),
});
export const updateAccountOutput = z.object({
  account_id: z.string(),
  version: z.number().int(),
  field: accountFieldSchema,
  value: z.string(),
});
export const mergeAccountsInput = z.object({ survivor_id: z.string(), duplicate_id: z.string() });
export const unmergeAccountsInput = z.object({ duplicate_id: z.string() });
export const addNoteInput = z.object({ account_id: z.string(), text: z.string().min(1) });
export const listNotesInput = z.object({ account_id: z.string() });
export const listNotesOutput = z.object({ notes: z.array(noteSchema) });

export type AccountStatus = z.infer<typeof accountStatusSchema>;
export type AccountField = z.infer<typeof accountFieldSchema>;
export type AccountView = z.infer<typeof accountViewSchema>;
export type AccountSummary = z.infer<typeof accountSummarySchema>;
export type NoteView = z.infer<typeof noteSchema>;
export type MergeView = z.infer<typeof mergeSchema>;
export type UpdateView = z.infer<typeof updateAccountOutput>;
