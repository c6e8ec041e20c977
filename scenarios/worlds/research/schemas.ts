import { z } from 'zod';

/**
 * The research world's tool contract: argument and result schemas, snake_case as a research
 * platform's API would name them. Schemas stay permissive where the world itself gives a typed
 * refusal (an unknown question or source, a claim outside the question, a source from another
 * question's corpus are refusals from the world, not schema rejections), so agents see the
 * error class.
 */
export const sourceKindSchema = z.enum(['report', 'article', 'filing', 'dataset']);
export const stanceSchema = z.enum(['supports', 'refutes']);
/** `corrected`: the publisher withdrew or moved a claim; `retracted`: the source states nothing now. */
export const sourceStatusSchema = z.enum(['active', 'corrected', 'retracted']);
export const answerStatusSchema = z.enum(['answered', 'unresolved']);

export const sourceClaimSchema = z.object({
  claim_id: z.string(),
  statement: z.string(),
  stance: stanceSchema,
});

export const sourceViewSchema = z.object({
  source_id: z.string(),
  question_id: z.string(),
  kind: sourceKindSchema,
  title: z.string(),
  publisher: z.string(),
  author: z.string(),
  published_at: z.string(),
  url: z.string(),
  status: sourceStatusSchema,
  notice: z.string().nullable(),
  body: z.string(),
  claims: z.array(sourceClaimSchema),
});

/** A search hit: enough to choose what to read; the snippet is the source's own text. */
export const searchResultSchema = z.object({
  source_id: z.string(),
  kind: sourceKindSchema,
  title: z.string(),
  publisher: z.string(),
  published_at: z.string(),
  status: sourceStatusSchema,
  snippet: z.string(),
});

/** One claim of an answer and the source it is attributed to. */
export const citationSchema = z.object({ claim_id: z.string(), source_id: z.string() });

export const answerSchema = z.object({
  answer_id: z.string(),
  question_id: z.string(),
  status: answerStatusSchema,
  claims: z.array(citationSchema),
  summary: z.string(),
  /** 1 for the first answer to the question; each resubmission replaces it and counts up. */
  revision: z.number().int(),
  submitted_at: z.string(),
});

export const searchSourcesInput = z.object({
  question_id: z.string(),
  /** Only sources that state this claim in support, primary sources first. */
  claim_id: z.string().optional(),
});
export const searchSourcesOutput = z.object({
  question_id: z.string(),
  question: z.string(),
  results: z.array(searchResultSchema),
});
export const readSourceInput = z.object({ source_id: z.string() });
export const submitAnswerInput = z.object({
  question_id: z.string(),
  status: answerStatusSchema,
  claims: z.array(citationSchema).default([]),
  summary: z.string().min(1),
});
export const getAnswerInput = z.object({ question_id: z.string() });
export const getAnswerOutput = z.object({
  question_id: z.string(),
  answer: answerSchema.nullable(),
});

export type SourceStatus = z.infer<typeof sourceStatusSchema>;
export type AnswerStatus = z.infer<typeof answerStatusSchema>;
export type SourceView = z.infer<typeof sourceViewSchema>;
export type SearchResult = z.infer<typeof searchResultSchema>;
export type Citation = z.infer<typeof citationSchema>;
export type AnswerView = z.infer<typeof answerSchema>;
