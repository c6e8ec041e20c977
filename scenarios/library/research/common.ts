import type { Check, CitationCheck, OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import type { Predicate } from '../../../runtime/predicate.js';

/** Shared pieces of the research scenarios: the analyst desk's authority and the usual steps. */

export const RESEARCH_BUDGETS = {
  toolCalls: 40,
  retries: 8,
  externalWrites: 4,
  virtualTimeMs: 4 * 3_600_000,
};

/** One claim of a draft answer and the source it is attributed to. */
export interface Citation {
  readonly claim_id: string;
  readonly source_id: string;
}

/**
 * What the desk may touch for one question: search its corpus, read the named sources, file
 * and look up the answer to that question — nothing else.
 */
export function researchAuthority(
  questionId: string,
  sources: readonly string[],
): ContractInput['authority'] {
  const question = { question_id: [questionId] };
  return {
    tools: {
      search_sources: { risk: 'read', resources: question },
      read_source: { risk: 'read', resources: { source_id: [...sources] } },
      get_answer: { risk: 'read', resources: question },
      submit_answer: { risk: 'medium', resources: question },
    },
  };
}

/** The desk's contract for one research question: its authority, budgets and bounded autonomy. */
export function researchContract(options: {
  question: string;
  sources: readonly string[];
  objective: string;
  decisionBoundary?: ContractInput['decisionBoundary'];
  evidenceRequired?: ContractInput['evidenceRequired'];
}): ContractInput {
  return {
    version: '1',
    objective: options.objective,
    decisionBoundary: options.decisionBoundary ?? 'execute',
    authority: researchAuthority(options.question, options.sources),
    autonomy: 'bounded',
    ...(options.evidenceRequired ? { evidenceRequired: options.evidenceRequired } : {}),
    budgets: RESEARCH_BUDGETS,
  };
}

/** Search the question's corpus (`input.question_id`), as operation `search`. */
export const searchCorpus: OperationInput = {
  id: 'search',
  description: "Search the question's corpus",
  tool: 'search_sources',
  kind: 'read',
  args: { question_id: { $ref: 'input.question_id' } },
};

/** Read one source, as operation `id`. */
export function readSource(id: string, sourceId: string, description: string): OperationInput {
  return { id, description, tool: 'read_source', kind: 'read', args: { source_id: sourceId } };
}

/** The source read by operation `read` states `claim` with this stance. */
export function stated(read: string, claim: string, stance: 'supports' | 'refutes'): Predicate {
  return {
    some: {
      path: `${read}.claims`,
      where: {
        all: [
          { path: 'item.claim_id', op: 'eq', value: claim },
          { path: 'item.stance', op: 'eq', value: stance },
        ],
      },
    },
  };
}

/**
 * The evidence read so far backs the draft: each claim is stated in support by the read of its
 * source, and no source read refutes any of them.
 */
export function evidenceHolds(
  backing: readonly { readonly read: string; readonly claim: string }[],
  reads: readonly string[],
): Predicate {
  const claims = [...new Set(backing.map((b) => b.claim))];
  return {
    all: [
      ...backing.map((b) => stated(b.read, b.claim, 'supports')),
      ...reads.flatMap((read) => claims.map((claim) => ({ not: stated(read, claim, 'refutes') }))),
    ],
  };
}

/**
 * The claim-to-source check for every claim of `args.claims` as filed, however many there are:
 * each cited source, read fresh, still states its claim in support. It holds for every
 * `submit_answer`, whichever operation (or planner) files it.
 */
export const citedSourcesStateClaims: CitationCheck = {
  description: 'the cited source still states the claim in support',
  each: 'args.claims',
  read: { tool: 'read_source', args: { source_id: { $ref: 'cited.source_id' } } },
  expect: {
    some: {
      path: 'fresh.claims',
      where: {
        all: [
          { path: 'item.claim_id', op: 'eq', value: { $ref: 'cited.claim_id' } },
          { path: 'item.stance', op: 'eq', value: 'supports' },
        ],
      },
    },
  },
};

const answerRead = {
  tool: 'get_answer',
  args: { question_id: { $ref: 'input.question_id' } },
};

/** The answer on file is the one this action submitted. */
const answerOnFile: Predicate = {
  all: [
    { path: 'fresh.answer.status', op: 'eq', value: { $ref: 'action.args.status' } },
    { path: 'fresh.answer.claims', op: 'eq', value: { $ref: 'action.args.claims' } },
  ],
};

/** File an answer; keys are honoured, and `get_answer` tells whether it took effect. */
function submission(
  id: string,
  description: string,
  status: 'answered' | 'unresolved',
  claims: { $ref: string } | [],
  summary: string,
  when: Predicate | undefined,
): OperationInput {
  return {
    id,
    description,
    tool: 'submit_answer',
    kind: 'write',
    args: { question_id: { $ref: 'input.question_id' }, status, claims, summary },
    ...(when ? { when } : {}),
    postconditions: [
      {
        description: 'the answer on file is the one submitted',
        read: answerRead,
        expect: answerOnFile,
      },
    ],
    idempotent: true,
    reconcile: { read: answerRead, found: answerOnFile },
  };
}

/**
 * File the question as answered with the draft's claims (`input.claims`), when `when` holds.
 * Each cited source is read fresh right before: if one no longer states its claim, the answer
 * is not sent and the operation is skipped, so a fallback can run.
 */
export function fileAnswer(options: {
  id?: string;
  description: string;
  summary: string;
  when: Predicate;
}): OperationInput {
  return {
    ...submission(
      options.id ?? 'answer',
      options.description,
      'answered',
      { $ref: 'input.claims' },
      options.summary,
      options.when,
    ),
    citations: [citedSourcesStateClaims],
  };
}

/** File the question as unresolved, citing nothing, when `when` holds. */
export function fileUnresolved(options: {
  id?: string;
  description: string;
  summary: string;
  when: Predicate;
}): OperationInput {
  return submission(
    options.id ?? 'unresolved',
    options.description,
    'unresolved',
    [],
    options.summary,
    options.when,
  );
}

/** Operation `id` did not file anything: its `when` did not hold or a citation check failed. */
export function notFiled(id: string): Predicate {
  return { path: id, op: 'absent' };
}

/** Before finishing: an answer to the question is on file. */
export const answerRecorded: Check = {
  description: 'an answer to the question is on file',
  read: answerRead,
  expect: { path: 'fresh.answer', op: 'exists' },
};

/** The world holds exactly this answer to `questionId`: status and claims, each from its source. */
export function answerFiled(
  questionId: string,
  status: 'answered' | 'unresolved',
  claims: readonly Citation[],
): Predicate {
  return {
    some: {
      path: 'world.answers',
      where: {
        all: [
          { path: 'item.question_id', op: 'eq', value: questionId },
          { path: 'item.status', op: 'eq', value: status },
          { path: 'item.claims.length', op: 'eq', value: claims.length },
          ...claims.map((c): Predicate => ({
            some: {
              path: 'item.claims',
              where: {
                all: [
                  { path: 'item.claim_id', op: 'eq', value: c.claim_id },
                  { path: 'item.source_id', op: 'eq', value: c.source_id },
                ],
              },
            },
          })),
        ],
      },
    },
  };
}

/** No answer to `questionId` is on file. */
export function noAnswer(questionId: string): Predicate {
  return {
    not: {
      some: {
        path: 'world.answers',
        where: { path: 'item.question_id', op: 'eq', value: questionId },
      },
    },
  };
}
