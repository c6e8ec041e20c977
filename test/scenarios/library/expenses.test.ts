import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_FAULTS, type FaultKind } from '../../../faults/catalog.js';
import { gradeRun, type FindingCode } from '../../../graders/index.js';
import { zooAgent } from '../../../scenarios/agents/zoo.js';
import { EXPENSES_SCENARIOS } from '../../../scenarios/library/expenses/index.js';
import { BUILT_IN_SCENARIOS } from '../../../scenarios/library/index.js';
import { runScenario } from '../../../scenarios/runner.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { deterministicPart } from '../../../scenarios/trajectory.js';
import { scenarioIn } from '../../support/library-case.js';

const outDir = mkdtempSync(join(tmpdir(), 'faultline-expenses-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

const scenario = (id: string): Scenario => scenarioIn(EXPENSES_SCENARIOS, id);

describe('expenses scenarios', () => {
  it('are in the built-in suite, under the expenses world', () => {
    const ids = EXPENSES_SCENARIOS.map((s) => s.id);

    expect(ids.length).toBeGreaterThanOrEqual(7);
    expect(BUILT_IN_SCENARIOS.filter((s) => s.id.startsWith('expenses/')).map((s) => s.id)).toEqual(
      ids,
    );
    for (const s of EXPENSES_SCENARIOS) {
      expect(s.world.name).toBe('expenses');
      expect(s.faultPlans.length).toBeGreaterThanOrEqual(1);
      expect(s.faultPlans.length).toBeLessThanOrEqual(4);
    }
    expect(new Set(EXPENSES_SCENARIOS.map((s) => s.tier))).toEqual(
      new Set(['low', 'medium', 'high']),
    );
  });

  it('cover the fault kinds an expense desk meets, a safe stop without faults, and a "do not" investigation', () => {
    const kinds = new Set<FaultKind>(
      EXPENSES_SCENARIOS.flatMap((s) => s.faultPlans.flatMap((p) => p.faults.map((f) => f.kind))),
    );

    for (const kind of [
      'approval-denied',
      'approval-delayed',
      'cancellation',
      'expired-credential',
      'duplicate-delivery',
      'stale-record',
      'timeout',
      'crash',
    ] as const)
      expect(kinds.has(kind), kind).toBe(true);
    expect(scenario('expenses/over-policy-dinner').expected).toMatchObject({
      state: 'failed',
      stopReason: 'precondition-unsatisfiable',
    });
    expect(scenario('expenses/duplicate-claim').contract.decisionBoundary).toBe('investigate');
    expect(scenario('expenses/deputy-sign-off').operator.approvals.approver).toBe('fin_2');
  });

  describe('the reference passes every dimension, with no finding, without faults and under every plan', () => {
    it.each(EXPENSES_SCENARIOS.map((s) => [s.id, s] as const))('%s', async (id, s) => {
      for (const plan of [NO_FAULTS, ...s.faultPlans]) {
        const run = await runScenario(s, { outDir, faultPlan: plan });
        const t = run.trajectory;

        const { grades, pass } = gradeRun(s, t);
        const findings = Object.values(grades)
          .flatMap((g) => g.findings)
          .map((f) => `${f.code}: ${f.message}`);

        const where = `${id}#${plan.id}`;
        expect({ where, findings }).toEqual({ where, findings: [] });
        expect({ where, pass, mismatches: run.mismatches }).toEqual({
          where,
          pass: true,
          mismatches: [],
        });
        if (plan !== NO_FAULTS) {
          expect(t.faults.fired.length, `${where}: faults fired`).toBeGreaterThan(0);
          expect(new Set(t.faults.fired.map((f) => f.index)).size, where).toBe(plan.faults.length);
        }
      }
    });
  });

  it('month-end: two sign-offs in one run, each for its own payout, each used once', async () => {
    const s = scenario('expenses/month-end-sign-offs');
    const { trajectory: t } = await runScenario(s, { outDir });

    expect(t.approvals.map((a) => [a.tool, a.approver])).toEqual([
      ['issue_payout', 'fin_1'],
      ['issue_payout', 'fin_1'],
    ]);
    expect(new Set(t.approvals.map((a) => a.identity)).size).toBe(2);
    const payouts = t.calls.filter((c) => c.tool === 'issue_payout');
    expect(payouts.map((c) => [c.args.claim_id, c.approvalToken])).toEqual([
      ['exp_2', t.approvals[0]?.token],
      ['exp_5', t.approvals[1]?.token],
    ]);
    // The second sign-off is asked only once the first payout is settled: hours apart.
    expect(t.approvals[1]!.grantedAt - t.approvals[0]!.grantedAt).toBeGreaterThanOrEqual(
      2 * 3_600_000,
    );
  });

  it('replay to the same trajectory for the same seed, and to other data for another', async () => {
    const s = scenario('expenses/deputy-sign-off');
    const plan = s.faultPlans.find((p) => p.id === 'payout-ack-lost')!;

    const [a, b] = [
      await runScenario(s, { outDir, faultPlan: plan }),
      await runScenario(s, { outDir, faultPlan: plan }),
    ];
    const other = await runScenario(s, { outDir, faultPlan: plan, seed: s.world.seed + 1 });

    expect(deterministicPart(b.trajectory)).toEqual(deterministicPart(a.trajectory));
    expect(other.trajectory.world.start).not.toEqual(a.trajectory.world.start);
    expect(other.asExpected).toBe(true);
  });

  /** For each scenario, a zoo agent and plan it fails on, and a finding that shows why. */
  const FAILED_BY: [scenario: string, plan: string, agent: string, code: FindingCode][] = [
    ['expenses/team-lunch', 'payout-delivered-twice', 'naive-chat-loop', 'duplicate-effect'],
    ['expenses/team-lunch', 'payout-arrives-late', 'no-idempotency', 'retry-changed-key'],
    [
      'expenses/team-lunch',
      'payouts-report-empty',
      'unverified-finish',
      'claimed-success-not-in-world',
    ],
    ['expenses/controller-sign-off', 'none', 'skips-approval', 'approval-missing'],
    [
      'expenses/controller-sign-off',
      'crash-before-payout-saved',
      'no-checkpoint',
      'checkpoint-missing',
    ],
    [
      'expenses/controller-sign-off',
      'credential-expires',
      'ignores-revocation',
      'call-after-revocation',
    ],
    ['expenses/amended-claim', 'amended-after-read', 'stale-write', 'stale-write'],
    ['expenses/amended-claim', 'policy-check-flaky', 'blind-retry', 'retry-without-backoff'],
    ['expenses/over-policy-dinner', 'none', 'naive-chat-loop', 'claimed-success-not-in-world'],
    [
      'expenses/over-policy-dinner',
      'policy-check-contradicts',
      'stale-write',
      'claimed-success-not-in-world',
    ],
    ['expenses/over-policy-dinner', 'hostile-note', 'obeys-injection', 'injection-followed'],
    [
      'expenses/withdrawn-claim',
      'withdrawn-awaiting-sign-off',
      'skips-approval',
      'fault-not-exercised',
    ],
    ['expenses/withdrawn-claim', 'withdrawn-after-payout', 'naive-chat-loop', 'state-mismatch'],
    ['expenses/deputy-sign-off', 'delegation-withdrawn', 'ignores-revocation', 'state-mismatch'],
    ['expenses/deputy-sign-off', 'none', 'skips-approval', 'approval-missing'],
    ['expenses/duplicate-claim', 'hostile-note', 'obeys-injection', 'injection-followed'],
    ['expenses/duplicate-claim', 'claims-service-down', 'blind-retry', 'retry-without-backoff'],
    ['expenses/month-end-sign-offs', 'none', 'skips-approval', 'approval-missing'],
    ['expenses/month-end-sign-offs', 'rail-throttled', 'blind-retry', 'rate-limit-ignored'],
  ];

  it('every scenario is failed by at least one agent of the zoo', () => {
    for (const s of EXPENSES_SCENARIOS)
      expect(
        FAILED_BY.some(([id]) => id === s.id),
        s.id,
      ).toBe(true);
  });

  it.each(FAILED_BY)('%s#%s is failed by %s (%s)', async (id, planId, agentName, code) => {
    const s = scenario(id);
    const plan = planId === 'none' ? NO_FAULTS : s.faultPlans.find((p) => p.id === planId);
    const agent = zooAgent(agentName);
    if (!plan || !agent) throw new Error(`no plan ${planId} or agent ${agentName}`);

    const run = await runScenario(s, { outDir, faultPlan: plan, agent: () => agent.create() });
    const { pass, grades } = gradeRun(s, run.trajectory);

    expect(pass).toBe(false);
    expect(Object.values(grades).flatMap((g) => g.findings.map((f) => f.code))).toContain(code);
  });
});
