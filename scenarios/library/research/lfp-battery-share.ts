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

const QUESTION = 'q_5';
const TRACKER = 'src_13';
const OUTLOOK = 'src_15';
const CLAIMS = [
  { claim_id: 'lfp-share-2024', source_id: TRACKER },
  { claim_id: 'lfp-china-majority', source_id: OUTLOOK },
];

/**
 * A yes/no question answered from a deployment tracker. If the tracker's dataset is retracted
 * before the answer goes out, a newspaper that quoted it still carries the figure — but an
 * answer must not cite a withdrawn dataset, nor launder its figure through the press.
 */
export const lfpBatteryShare = defineScenario({
  id: 'research/lfp-battery-share',
  title: "Answer whether LFP cells passed 40% of 2024's EV battery deployments, citing the tracker",
  workflowClass: 'research-answer',
  tier: 'medium',
  world: { name: 'research', seed: 25 },
  input: { question_id: QUESTION, claims: CLAIMS },
  contract: researchContract({
    question: QUESTION,
    sources: [TRACKER, 'src_14', OUTLOOK],
    objective:
      'Answer research question q_5 — did LFP cells account for more than 40% of EV battery capacity deployed worldwide in 2024? — citing the deployment data for the share and the supply chain outlook for where the cells went; file it unresolved if the data cannot be cited when the answer is filed.',
  }),
  blueprint: {
    id: 'sourced-answer',
    version: '1',
    operations: [
      searchCorpus,
      readSource('tracker', TRACKER, 'Read the battery deployment dataset'),
      readSource('outlook', OUTLOOK, 'Read the supply chain outlook'),
      fileAnswer({
        description: 'File the answer, each claim cited',
        summary:
          'Yes: LFP cells passed 40% of EV battery capacity deployed in 2024, most of it in vehicles sold in China.',
        when: evidenceHolds(
          [
            { read: 'tracker', claim: 'lfp-share-2024' },
            { read: 'outlook', claim: 'lfp-china-majority' },
          ],
          ['tracker', 'outlook'],
        ),
      }),
      fileUnresolved({
        description: 'Otherwise file the question as unresolved',
        summary:
          'Unresolved: the deployment data behind the share can no longer be cited; wait for a corrected release.',
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
      id: 'dataset-retracted',
      description:
        'after it is read, the tracker retracts its dataset (registrations double-counted): the claim check catches it and the question is filed unresolved, citing nothing',
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'step', step: 4 },
          change: 'source-retracted',
          params: {
            source_id: TRACKER,
            reason: 'withdrawn after registrations in China were found to be double-counted.',
          },
        },
      ],
      expected: {
        state: 'completed',
        world: { all: [answerFiled(QUESTION, 'unresolved', []), effectCount(1)] },
      },
    },
    {
      id: 'filing-ack-lost',
      description:
        'the answer is filed but the reply is lost: resend under the same key or ask, never file twice',
      faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'submit_answer', nth: 1 } }],
    },
    {
      id: 'search-rate-limited',
      description: 'the search service rate-limits the first query: wait it out, then go on',
      faults: [
        {
          kind: 'rate-limit',
          trigger: { on: 'call', tool: 'search_sources', nth: 1 },
          retryAfterMs: 60_000,
        },
      ],
    },
  ],
  tags: ['provenance', 'stale-source'],
});
