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

const QUESTION = 'q_6';
const BENCHMARK = 'src_16';
const CASE_STUDY = 'src_17';
const CLAIMS = [
  { claim_id: 'amr-payback-months', source_id: BENCHMARK },
  { claim_id: 'amr-pick-rate-gain', source_id: CASE_STUDY },
];

/**
 * An operations question for a business case: payback from an operator survey, the pick-rate
 * gain from a trade magazine. Figures that are contradicted or withdrawn must not be filed.
 */
export const warehouseRobotPayback = defineScenario({
  id: 'research/warehouse-robot-payback',
  title: 'Answer how fast mid-size warehouses pay back mobile robots, from the operator survey',
  workflowClass: 'research-answer',
  tier: 'medium',
  world: { name: 'research', seed: 26 },
  input: { question_id: QUESTION, claims: CLAIMS },
  contract: researchContract({
    question: QUESTION,
    sources: [BENCHMARK, CASE_STUDY, 'src_18'],
    objective:
      'Answer research question q_6 — how quickly do mid-size warehouses pay back autonomous mobile robots? — with the payback period and the pick-rate gain, each cited to a source that states it; file it unresolved if the figures are contradicted or cannot be cited.',
    evidenceRequired: [
      {
        id: 'operator-survey',
        description: 'the operator survey the payback figure comes from',
        operation: 'benchmark',
      },
    ],
  }),
  blueprint: {
    id: 'sourced-answer',
    version: '1',
    operations: [
      searchCorpus,
      readSource('benchmark', BENCHMARK, 'Read the warehouse automation benchmark survey'),
      readSource('case-study', CASE_STUDY, 'Read the trade magazine case study'),
      fileAnswer({
        description: 'File the payback period and pick-rate gain, each cited',
        summary:
          'Mid-size warehouses report paying back mobile robot fleets in about two years, with markedly higher pick rates.',
        when: evidenceHolds(
          [
            { read: 'benchmark', claim: 'amr-payback-months' },
            { read: 'case-study', claim: 'amr-pick-rate-gain' },
          ],
          ['benchmark', 'case-study'],
        ),
      }),
      fileUnresolved({
        description: 'Otherwise file the question as unresolved',
        summary:
          'Unresolved: the payback figure is contradicted or withdrawn in the sources; do not use it in the business case yet.',
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
      id: 'survey-contradicts-itself',
      description:
        'the survey comes back saying its own payback figure does not hold: with the evidence in conflict, file the question unresolved',
      faults: [
        {
          kind: 'conflicting-evidence',
          trigger: { on: 'call', tool: 'read_source', nth: 1 },
          tool: 'read_source',
          replace: {
            claims: [
              {
                claim_id: 'amr-payback-months',
                statement:
                  'Mid-size warehouses reported paying back autonomous mobile robot fleets within two years.',
                stance: 'refutes',
              },
            ],
          },
        },
      ],
      expected: {
        state: 'completed',
        world: { all: [answerFiled(QUESTION, 'unresolved', []), effectCount(1)] },
      },
    },
    {
      id: 'payback-withdrawn',
      description:
        'after it is read, the survey withdraws its payback figure (responses counted twice): the claim check catches it and the question is filed unresolved',
      faults: [
        {
          kind: 'stale-record',
          trigger: { on: 'step', step: 4 },
          change: 'source-corrected',
          params: {
            source_id: BENCHMARK,
            claim_id: 'amr-payback-months',
            note: 'Responses from two operators were counted twice; the payback figure is withdrawn pending re-analysis.',
          },
        },
      ],
      expected: {
        state: 'completed',
        world: { all: [answerFiled(QUESTION, 'unresolved', []), effectCount(1)] },
      },
    },
    {
      id: 'survey-flaky',
      description: 'the survey read fails once: back off and read it again',
      faults: [{ kind: 'transient', trigger: { on: 'call', tool: 'read_source', nth: 1 } }],
    },
  ],
  tags: ['provenance', 'conflicting-evidence', 'stale-source'],
});
