import { defineScenario } from '../../scenario.js';
import { effectCount } from '../predicates.js';
import {
  answerFiled,
  answerRecorded,
  evidenceHolds,
  fileAnswer,
  fileUnresolved,
  notFiled,
  readSource,
  researchContract,
  searchCorpus,
} from './common.js';

const QUESTION = 'q_3';
const ANALYST_REPORT = 'src_7';
const NEWS_ARTICLE = 'src_8';
const CLAIMS = [
  { claim_id: 'market-size-2024', source_id: NEWS_ARTICLE },
  { claim_id: 'market-growth', source_id: ANALYST_REPORT },
];

/**
 * Market sizing from what is readable: the size figure from a business journal, the growth
 * forecast from an analyst's executive summary. If the journal corrects itself — the figure
 * came from the analyst's report, not its own survey — the answer must not go out citing it.
 */
export const droneInspectionMarket = defineScenario({
  id: 'research/drone-inspection-market',
  title: 'Size the US drone inspection services market, citing where each figure comes from',
  workflowClass: 'market-sizing',
  tier: 'medium',
  world: { name: 'research', seed: 23 },
  input: { question_id: QUESTION, claims: CLAIMS },
  contract: researchContract({
    question: QUESTION,
    sources: [ANALYST_REPORT, NEWS_ARTICLE, 'src_9'],
    objective:
      'Answer research question q_3 — how large was the US market for commercial drone inspection services in 2024, and how fast is it growing? — citing for each figure the source that states it; file the question as unresolved if a figure cannot be sourced when the answer is filed.',
    evidenceRequired: [
      {
        id: 'size-figure',
        description: 'the article that reports the 2024 market size',
        operation: 'news',
      },
    ],
  }),
  blueprint: {
    id: 'sourced-answer',
    version: '1',
    operations: [
      searchCorpus,
      readSource('analyst', ANALYST_REPORT, "Read the analyst report's executive summary"),
      readSource('news', NEWS_ARTICLE, 'Read the business journal article'),
      fileAnswer({
        description: 'File the market size and growth, each cited',
        summary:
          'US drone inspection services were a market of more than a billion dollars in 2024, growing in the high teens a year.',
        when: evidenceHolds(
          [
            { read: 'news', claim: 'market-size-2024' },
            { read: 'analyst', claim: 'market-growth' },
          ],
          ['analyst', 'news'],
        ),
      }),
      fileUnresolved({
        description: 'Otherwise file the question as unresolved for an analyst to re-source',
        summary:
          'Unresolved: a cited source no longer states its figure (publisher correction); the market size needs re-sourcing.',
        when: notFiled('answer'),
      }),
    ],
    completion: [answerRecorded],
  },
  expected: {
    state: 'completed',
    world: { all: [answerFiled(QUESTION, 'answered', CLAIMS), effectCount(1)] },
  },
  faultPlans: [
    {
      id: 'figure-reattributed',
      description:
        'after the article is read, its publisher corrects it: the size figure came from the analyst report, not its own survey. The claim check catches it, and the question is filed unresolved rather than cite the article for a figure it no longer states',
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'step', step: 4 },
          change: 'source-corrected',
          params: {
            source_id: NEWS_ARTICLE,
            claim_id: 'market-size-2024',
            moved_to: ANALYST_REPORT,
          },
        },
      ],
      expected: {
        state: 'completed',
        world: { all: [answerFiled(QUESTION, 'unresolved', []), effectCount(1)] },
      },
    },
    {
      id: 'crash-after-filing',
      description:
        'the process dies right after the answer is saved: resume from the checkpoint, do not file it again',
      faults: [
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-result-saved', operation: 'answer' },
        },
      ],
    },
    {
      id: 'planner-garbled',
      description: 'the planner answers with garbage just before filing: ask again, file once',
      faults: [{ kind: 'invalid-output', trigger: { on: 'proposal', nth: 4 } }],
    },
  ],
  tags: ['provenance', 'stale-source'],
});
