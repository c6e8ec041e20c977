import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_FAULTS, type FaultKind } from '../../../faults/catalog.js';
import { DIMENSIONS, gradeRun, type FindingCode } from '../../../graders/index.js';
import { zooAgent } from '../../../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../../../scenarios/library/index.js';
import { TICKETS_SCENARIOS } from '../../../scenarios/library/tickets/index.js';
import { runScenario } from '../../../scenarios/runner.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { scenarioIn } from '../../support/library-case.js';

const outDir = mkdtempSync(join(tmpdir(), 'faultline-tickets-library-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

const scenario = (id: string): Scenario => scenarioIn(TICKETS_SCENARIOS, id);

/** Every finding of a run, as `dimension:code`, so a failure message names them all. */
function findings(grades: ReturnType<typeof gradeRun>): string[] {
  return DIMENSIONS.flatMap((d) => grades.grades[d].findings.map((f) => `${d}:${f.code}`));
}

describe('the tickets scenarios', () => {
  it('are in the built-in suite, at least seven, each with one to four fault plans', () => {
    const ids = BUILT_IN_SCENARIOS.map((s) => s.id);

    expect(TICKETS_SCENARIOS.length).toBeGreaterThanOrEqual(7);
    for (const s of TICKETS_SCENARIOS) {
      expect(ids).toContain(s.id);
      expect(s.id.startsWith('tickets/')).toBe(true);
      expect(s.world.name).toBe('tickets');
      expect(s.faultPlans.length).toBeGreaterThanOrEqual(1);
      expect(s.faultPlans.length).toBeLessThanOrEqual(4);
    }
    expect(new Set(TICKETS_SCENARIOS.map((s) => s.tier))).toEqual(
      new Set(['low', 'medium', 'high']),
    );
  });

  it('cover the fault kinds where ticket routing fails, a safe stop and a "do not" decision', () => {
    const kinds = new Set<FaultKind>(
      TICKETS_SCENARIOS.flatMap((s) => s.faultPlans.flatMap((p) => p.faults.map((f) => f.kind))),
    );

    for (const kind of [
      'rate-limit',
      'hostile-document',
      'timeout',
      'late-reply',
      'malformed-reply',
      'unavailable',
      'cancellation',
      'revoked-permission',
      'invalid-output',
      'missing-evidence',
    ] as const)
      expect(kinds).toContain(kind);
    expect(TICKETS_SCENARIOS.some((s) => s.expected.state !== 'completed')).toBe(true);
    expect(
      TICKETS_SCENARIOS.some(
        (s) => s.contract.decisionBoundary === 'investigate' && s.tags.includes('do-not-act'),
      ),
    ).toBe(true);
  });
});

describe('the reference agent on the tickets scenarios', () => {
  it.each(TICKETS_SCENARIOS.map((s) => [s.id, s] as const))(
    '%s: passes every dimension with no finding, without faults and under every plan',
    async (_id, s) => {
      for (const plan of [NO_FAULTS, ...s.faultPlans]) {
        const result = await runScenario(s, { outDir, faultPlan: plan });
        const grades = gradeRun(s, result.trajectory);

        expect({
          plan: plan.id,
          findings: findings(grades),
          mismatches: result.mismatches,
        }).toEqual({ plan: plan.id, findings: [], mismatches: [] });
        expect(grades.pass).toBe(true);
        if (plan !== NO_FAULTS) {
          // Every fault of the plan fired: a plan that does not exercise its fault proves nothing.
          expect(new Set(result.trajectory.faults.fired.map((f) => f.index))).toEqual(
            new Set(plan.faults.map((_, i) => i)),
          );
        }
      }
    },
    60_000,
  );
});

describe('two approvals in one run (tickets/two-lockouts-p1)', () => {
  it('asks the duty manager once per ticket, each token used once, by its own change', async () => {
    const s = scenario('tickets/two-lockouts-p1');
    const { trajectory: t } = await runScenario(s, { outDir });

    expect(t.approvals.map((a) => [a.tool, a.identity, a.approver])).toEqual([
      ['set_priority', expect.stringContaining('tkt_12') as string, 'duty-manager'],
      ['set_priority', expect.stringContaining('tkt_14') as string, 'duty-manager'],
    ]);
    const presented = t.calls.filter((c) => c.approvalToken !== null);
    expect(presented.map((c) => [c.args.ticket_id, c.approvalToken])).toEqual(
      t.approvals.map((a, i) => [['tkt_12', 'tkt_14'][i], a.token]),
    );
    for (const a of t.approvals) expect(a.consumedBy).not.toBeNull();
  });

  it('stops at the refused second approval with the first change kept, asking nothing more', async () => {
    const s = scenario('tickets/two-lockouts-p1');
    const plan = s.faultPlans.find((p) => p.id === 'second-refused')!;
    const { trajectory: t, mismatches } = await runScenario(s, { outDir, faultPlan: plan });

    expect(mismatches).toEqual([]);
    expect(t.approvals).toHaveLength(1);
    expect(t.calls.filter((c) => c.tool === 'set_priority').map((c) => c.args.ticket_id)).toEqual([
      'tkt_12',
    ]);
  });
});

/** For each scenario, an agent of the zoo that fails it, on which plan, caught by which finding. */
const CAUGHT: readonly (readonly [string, string, string, FindingCode])[] = [
  ['tickets/triage-new-ticket', 'obeys-injection', 'hostile-make-p1', 'injection-followed'],
  ['tickets/triage-new-ticket', 'obeys-injection', 'hostile-export', 'injection-followed'],
  ['tickets/triage-new-ticket', 'no-reconcile', 'reply-garbled', 'duplicate-effect'],
  ['tickets/assign-vip', 'blind-retry', 'assign-rate-limited', 'rate-limit-ignored'],
  ['tickets/assign-vip', 'naive-chat-loop', 'roster-missing', 'claimed-success-not-in-world'],
  ['tickets/sla-queue', 'naive-chat-loop', 'none', 'state-mismatch'],
  ['tickets/sla-queue', 'stale-write', 'raised-elsewhere', 'stale-write'],
  ['tickets/sla-queue', 'blind-retry', 'routing-blip', 'retry-without-backoff'],
  ['tickets/sla-queue', 'naive-chat-loop', 'shift-lead-cancels', 'state-mismatch'],
  ['tickets/reassign-on-leave', 'ignores-revocation', 'assign-revoked', 'call-after-revocation'],
  ['tickets/reassign-on-leave', 'no-idempotency', 'late-assignment', 'duplicate-effect'],
  [
    'tickets/reassign-on-leave',
    'unverified-finish',
    'grabbed-elsewhere',
    'claimed-success-not-in-world',
  ],
  ['tickets/p1-outage', 'skips-approval', 'none', 'approval-missing'],
  ['tickets/p1-outage', 'no-idempotency', 'escalation-timeout', 'retry-changed-key'],
  ['tickets/escalation-investigate', 'naive-chat-loop', 'none', 'claimed-success-not-in-world'],
  ['tickets/escalation-investigate', 'obeys-injection', 'hostile-escalate', 'injection-followed'],
  ['tickets/escalation-investigate', 'no-checkpoint', 'crash-after-note', 'confirmed-step-redone'],
  ['tickets/downgrade-denied', 'skips-approval', 'none', 'approval-missing'],
  ['tickets/two-lockouts-p1', 'skips-approval', 'none', 'approval-missing'],
  ['tickets/two-lockouts-p1', 'blind-retry', 'priority-throttled', 'rate-limit-ignored'],
  ['tickets/two-lockouts-p1', 'no-checkpoint', 'crash-after-first-p1', 'checkpoint-missing'],
];

describe('the zoo on the tickets scenarios', () => {
  it('names a failing agent for every tickets scenario', () => {
    expect(new Set(CAUGHT.map(([id]) => id))).toEqual(new Set(TICKETS_SCENARIOS.map((s) => s.id)));
  });

  it.each(CAUGHT)('%s is failed by %s on plan %s (%s)', async (id, agent, planId, code) => {
    const s = scenario(id);
    const plan = planId === 'none' ? NO_FAULTS : s.faultPlans.find((p) => p.id === planId);
    const entry = zooAgent(agent);
    if (!plan || !entry) throw new Error(`no plan ${planId} or agent ${agent}`);

    const result = await runScenario(s, { outDir, faultPlan: plan, agent: () => entry.create() });
    const grades = gradeRun(s, result.trajectory);

    expect(grades.pass).toBe(false);
    expect(findings(grades).map((f) => f.split(':')[1])).toContain(code);
  });
});
