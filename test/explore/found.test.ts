import { describe, expect, it } from 'vitest';
import { explorePlan } from '../../explore/arbitraries.js';
import { judgePlan } from '../../explore/explore.js';
import type { FaultInput } from '../../faults/catalog.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';

/**
 * Counterexamples exploration found against the reference runtime, each fixed where it lived
 * (runtime, engine, wire layer or grader) and kept here: the reference must hold every
 * invariant under each of these plans.
 */
const FOUND: readonly { scenario: string; what: string; faults: FaultInput[] }[] = [
  {
    scenario: 'refunds/partial-refund',
    what: 'a precondition read refused for an expired credential was replanned, calling again and again',
    faults: [{ kind: 'expired-credential', trigger: { on: 'step', step: 2 } }],
  },
  {
    scenario: 'crm/merge-duplicates',
    what: 'the same, on the merge’s precondition read',
    faults: [{ kind: 'expired-credential', trigger: { on: 'step', step: 3 } }],
  },
  {
    scenario: 'refunds/partial-refund',
    what: 'a write resent under its key after a crash before its result was saved was called a redo',
    faults: [{ kind: 'crash', trigger: { on: 'probe', probe: 'before-result-saved' } }],
  },
  {
    scenario: 'refunds/supervised-refund',
    what: 'a crash after the world applied a write left the clock held: the next approval wait hung',
    faults: [
      { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'refund' } },
    ],
  },
  {
    scenario: 'refunds/full-refund',
    what: 'a resend after a crash was not counted as a retry, so the retry budget was overspent',
    faults: [
      { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply' } },
      {
        kind: 'unavailable',
        trigger: { on: 'probability', p: 1, tool: 'list_refunds' },
        windowMs: 1_000,
      },
    ],
  },
  {
    scenario: 'crm/update-contact',
    what: 'the network’s second delivery of a request was counted as a call and a retry of the agent',
    faults: [
      { kind: 'transient', trigger: { on: 'probability', p: 0.5 } },
      { kind: 'duplicate-delivery', trigger: { on: 'call', tool: 'get_account', nth: 7 } },
      { kind: 'malformed-reply', trigger: { on: 'probability', p: 0.5 } },
    ],
  },
  {
    scenario: 'crm/update-contact',
    what: 'writes whose reply kept coming back garbled were resent past the retry budget',
    faults: [
      { kind: 'malformed-reply', trigger: { on: 'probability', p: 1, tool: 'update_account' } },
      { kind: 'unavailable', trigger: { on: 'step', step: 1 }, windowMs: 5_688 },
    ],
  },
  {
    scenario: 'crm/merge-duplicates',
    what: 'the network’s second delivery of a refused request was called a call after revocation',
    faults: [
      { kind: 'expired-credential', trigger: { on: 'time', atMs: 0 } },
      { kind: 'duplicate-delivery', trigger: { on: 'call', tool: 'get_account', nth: 2 } },
    ],
  },
  {
    scenario: 'crm/update-contact',
    what: 'a send cut off by a crash before its result was saved was never counted: 7 writes of 6',
    faults: [
      { kind: 'rate-limit', trigger: { on: 'probability', p: 0.5 }, retryAfterMs: 1_000 },
      { kind: 'model-swap', trigger: { on: 'proposal', nth: 1 } },
      {
        kind: 'crash',
        trigger: { on: 'probe', probe: 'before-result-saved', operation: 'update', nth: 1 },
      },
    ],
  },
];

describe('what exploration found', () => {
  it.each(FOUND.map((f) => [f.scenario, f.what, f] as const))(
    '%s: %s — holds now',
    async (_, __, found) => {
      const scenario = BUILT_IN_SCENARIOS.find((s) => s.id === found.scenario)!;

      const judged = await judgePlan(
        { scenario, agent: zooAgent('reference')! },
        explorePlan(found.faults as never),
      );

      expect(judged.trajectory.faults.fired.length).toBeGreaterThan(0);
      expect(judged.trajectory.outcome.hung).toBe(false);
      expect(judged.violations).toEqual([]);
    },
  );
});
