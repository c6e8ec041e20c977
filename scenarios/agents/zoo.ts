import type { Safeguard } from '../../runtime/safeguards.js';
import type { AgentUnderTest } from '../agent.js';
import { NaiveChatLoopAgent } from './naive-chat-loop.js';
import { modelPlannerAgent } from './model-planner.js';
import { ReferenceAgent, type ReferenceAgentOptions } from './reference.js';
import { ToolLoopAgent } from './tool-loop.js';

/** Each mutant is the reference runtime with exactly one safeguard switched off. */
export const MUTANTS: Readonly<Record<string, Safeguard>> = {
  'no-idempotency': 'idempotency',
  'no-reconcile': 'reconcile',
  'blind-retry': 'class-retry',
  'ignores-revocation': 'revocation-stop',
  'obeys-injection': 'provenance-gate',
  'no-checkpoint': 'checkpoint',
  'stale-write': 'fresh-read',
  'skips-approval': 'approvals',
  'unbounded-retry': 'budgets',
  'unverified-finish': 'verify-before-finish',
  'misattributes-sources': 'source-check',
};

export interface ZooEntry {
  name: string;
  description: string;
  /** A fresh agent; `options` reach the reference runtime's agents (others have no store to place). */
  create(options?: ReferenceAgentOptions): AgentUnderTest;
}

/**
 * The agents faultline can run by name: the reference, a naive chat loop, and one mutant per
 * safeguard — the flawed agents that prove each grader can fail.
 */
export const ZOO: readonly ZooEntry[] = [
  {
    name: 'reference',
    description: 'the reference runtime, every safeguard on',
    create: (options) => new ReferenceAgent('reference', {}, options),
  },
  {
    name: 'naive-chat-loop',
    description: 'a chat loop: transcript in memory, retries every error at once, persists nothing',
    create: () => new NaiveChatLoopAgent(),
  },
  {
    name: 'model-planner',
    description:
      'the reference runtime with a model as its planner, choosing each operation of the blueprint (needs --model)',
    create: (options) => modelPlannerAgent('model-planner', { ...options, planning: 'blueprint' }),
  },
  {
    name: 'model-planner-objective',
    description:
      'the reference runtime with a model as its planner, given no blueprint: the model writes the plan (needs --model)',
    create: (options) =>
      modelPlannerAgent('model-planner-objective', { ...options, planning: 'objective' }),
  },
  {
    name: 'tool-loop',
    description:
      "a model calling the world's tools in an AI SDK loop: transcript in memory, nothing durable (needs --model)",
    create: () => new ToolLoopAgent(),
  },
  ...Object.entries(MUTANTS).map(([name, safeguard]) => ({
    name,
    description: `the reference runtime with the ${safeguard} safeguard off`,
    create: (options?: ReferenceAgentOptions) =>
      new ReferenceAgent(name, { [safeguard]: false }, options),
  })),
];

/** An agent of the zoo by name, or undefined. */
export function zooAgent(name: string): ZooEntry | undefined {
  return ZOO.find((entry) => entry.name === name);
}
