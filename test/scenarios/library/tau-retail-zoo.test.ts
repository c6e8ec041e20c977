import { describe, expect, it } from 'vitest';
import { EXPECTED_DETECTIONS } from '../../../graders/matrix.js';
import { MUTANTS } from '../../../scenarios/agents/zoo.js';
import { tauRetailScenarios } from '../../../scenarios/library/tau-retail/index.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { tempDir } from '../../support/cli.js';
import { planOf, runGraded } from '../../support/library-case.js';

/**
 * Each mutant of the zoo fails a plan derived from a τ-bench task, caught by the finding its
 * flaw predicts, where the reference passes that same task and plan. The cases were found by
 * running every mutant over the whole suite (`faultline run 'tau-retail/*' --agent NAME`).
 *
 * Two flaws show here under another finding than the library's, because the store stops the
 * damage first: after a crash its redo is stopped by the order's status check before it is
 * sent (the run fails as state-mismatch), so no-checkpoint is named by the checkpoints it never
 * saves; misattributes-sources has nothing
 * to misattribute, as the store has no sources to cite (as in the matrix).
 */
const CASES: readonly { agent: string; task: string; plan: string; finding: string }[] = [
  { agent: 'no-idempotency', task: 'test-000', plan: 'timeout-a004', finding: 'retry-changed-key' },
  { agent: 'no-reconcile', task: 'test-043', plan: 'timeout-a004', finding: 'unreconciled-retry' },
  {
    agent: 'blind-retry',
    task: 'test-000',
    plan: 'transient-a003',
    finding: 'retry-without-backoff',
  },
  {
    agent: 'ignores-revocation',
    task: 'test-000',
    plan: 'revoked-permission-a004',
    finding: 'call-after-revocation',
  },
  {
    agent: 'obeys-injection',
    task: 'test-000',
    plan: 'hostile-document',
    finding: 'injection-followed',
  },
  {
    agent: 'no-checkpoint',
    task: 'test-000',
    plan: 'lost-ack-a004',
    finding: 'checkpoint-missing',
  },
  { agent: 'stale-write', task: 'test-031', plan: 'stale-record-a008', finding: 'stale-write' },
  { agent: 'skips-approval', task: 'test-000', plan: 'lost-ack-a004', finding: 'approval-missing' },
  {
    agent: 'unbounded-retry',
    task: 'test-003',
    plan: 'stale-record-a012',
    finding: 'budget-exceeded',
  },
  {
    agent: 'unverified-finish',
    task: 'test-000',
    plan: 'unapplied-write-a004',
    finding: 'claimed-success-not-in-world',
  },
];

const scenarios = new Map<string, Scenario>();
function task(name: string): Scenario {
  if (scenarios.size === 0) for (const s of tauRetailScenarios('test')) scenarios.set(s.id, s);
  const found = scenarios.get(`tau-retail/${name}`);
  if (!found) throw new Error(`no task ${name}`);
  return found;
}

async function run(agent: string, name: string, planId: string) {
  const s = task(name);
  const { result, grades, codes } = await runGraded(s, planOf(s, planId), {
    outDir: tempDir('tau-zoo'),
    agent,
  });
  return { passed: grades.pass && result.asExpected, codes };
}

describe('tau-retail: every mutant of the zoo fails a derived plan, as its flaw predicts', () => {
  it('covers every mutant but the one with nothing to misattribute here', () => {
    expect(CASES.map((c) => c.agent).sort()).toEqual(
      Object.keys(MUTANTS)
        .filter((m) => m !== 'misattributes-sources')
        .sort(),
    );
  });

  for (const c of CASES)
    it(`${c.agent} fails ${c.task} / ${c.plan} with ${c.finding}; the reference passes it`, async () => {
      const mutant = await run(c.agent, c.task, c.plan);
      expect(mutant.passed).toBe(false);
      expect(mutant.codes).toContain(c.finding);

      const reference = await run('reference', c.task, c.plan);
      expect(reference.codes).toEqual([]);
      expect(reference.passed).toBe(true);
    }, 60_000);

  it("predicts the library's finding for each mutant where the store lets the flaw do harm", () => {
    for (const c of CASES.filter((x) => x.agent !== 'no-checkpoint'))
      expect(EXPECTED_DETECTIONS[c.agent], c.agent).toBe(c.finding);
  });
});
