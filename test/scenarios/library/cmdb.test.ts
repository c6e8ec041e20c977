import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_FAULTS, type FaultPlan } from '../../../faults/catalog.js';
import { gradeRun } from '../../../graders/index.js';
import { approvalRequired } from '../../../runtime/policy.js';
import { evaluate, resolveValue } from '../../../runtime/predicate.js';
import { APPROVAL_TOKEN_META } from '../../../runtime/protocol.js';
import type { AgentUnderTest } from '../../../scenarios/agent.js';
import { CMDB_SCENARIOS } from '../../../scenarios/library/cmdb/index.js';
import { syncOperations } from '../../../scenarios/library/cmdb/common.js';
import { syncPlanForSeed } from '../../../scenarios/library/cmdb/sync-plan.js';
import { BUILT_IN_SCENARIOS } from '../../../scenarios/library/index.js';
import { runScenario } from '../../../scenarios/runner.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import type { Trajectory } from '../../../scenarios/trajectory.js';
import type { CmdbState } from '../../../scenarios/worlds/cmdb/index.js';
import { doctor } from '../../support/grader-fixtures.js';
import { planOf, runGraded, scenarioIn } from '../../support/library-case.js';

const outDir = mkdtempSync(join(tmpdir(), 'faultline-cmdb-library-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

const scenario = (id: string): Scenario => scenarioIn(CMDB_SCENARIOS, id);
const run = (s: Scenario, p: FaultPlan, agent = 'reference', seed?: number) =>
  runGraded(s, p, { outDir, agent, ...(seed === undefined ? {} : { seed }) });

/**
 * What a run did, without the fault marks on its calls: the calls and their outcomes, the
 * effects, the end state and the agent's own events and evidence. A fault that changes none
 * of it proves nothing.
 */
function signature(t: Trajectory): string {
  const records = t.agentRecords as {
    events: { type: string }[];
    evidence: { content: unknown }[];
  } | null;
  return JSON.stringify({
    calls: t.calls.map((c) => [c.tool, c.args, c.outcome]),
    effects: t.ledger.map((e) => e.identity),
    outcome: [t.outcome.state, t.outcome.stopReason],
    crashes: t.crashes.length,
    events: records?.events.map((e) => e.type),
    evidence: records?.evidence.map((e) => e.content),
  });
}

describe('the CMDB scenarios', () => {
  it('are in the built-in library, one world, every tier, 1–5 fault plans each', () => {
    const ids = CMDB_SCENARIOS.map((s) => s.id);

    expect(BUILT_IN_SCENARIOS.filter((s) => s.world.name === 'cmdb').map((s) => s.id)).toEqual(ids);
    expect(ids).toEqual([
      'cmdb/onboard-hosts',
      'cmdb/drift-update',
      'cmdb/retire-request',
      'cmdb/decommission',
      'cmdb/sync-quota',
      'cmdb/model-budget',
      'cmdb/nightly-sync',
    ]);
    expect(new Set(CMDB_SCENARIOS.map((s) => s.tier))).toEqual(new Set(['low', 'medium', 'high']));
    for (const s of CMDB_SCENARIOS) {
      expect(s.faultPlans.length).toBeGreaterThanOrEqual(1);
      expect(s.faultPlans.length).toBeLessThanOrEqual(5);
    }
  });

  it('cover every fault kind the sync setting calls for', () => {
    const kinds = new Set(
      CMDB_SCENARIOS.flatMap((s) => s.faultPlans.flatMap((p) => p.faults.map((f) => f.kind))),
    );

    expect([...kinds].sort()).toEqual(
      [
        'approval-delayed',
        'approval-denied',
        'cancellation',
        'conflicting-evidence',
        'context-compaction',
        'crash',
        'duplicate-delivery',
        'expired-credential',
        'hostile-document',
        'invalid-output',
        'late-reply',
        'malformed-reply',
        'missing-evidence',
        'model-swap',
        'rate-limit',
        'revoked-permission',
        'stale-record',
        'timeout',
        'transient',
        'unavailable',
      ].sort(),
    );
  });

  it('generate the long sync from the seeded diff, the same operations for every seed', () => {
    const reference = syncOperations(syncPlanForSeed(21));

    for (const seed of [1, 2, 3, 99, 12_345]) {
      expect(syncOperations(syncPlanForSeed(seed))).toEqual(reference);
    }
    expect(scenario('cmdb/nightly-sync').blueprint.operations.map((o) => o.id)).toEqual(
      reference.map((o) => o.id),
    );
    expect(reference).toHaveLength(32);
  });
});

describe('the reference agent on the CMDB scenarios', () => {
  it.each(CMDB_SCENARIOS.map((s) => [s.id, s] as const))(
    '%s: passes every dimension with no finding, without faults and under every plan',
    async (_id, s) => {
      const clean = await run(s, NO_FAULTS);
      expect(clean.findings).toEqual([]);
      expect(clean.grades.pass).toBe(true);
      expect(clean.result.asExpected).toBe(true);

      for (const p of s.faultPlans) {
        const faulted = await run(s, p);
        const t = faulted.result.trajectory;

        expect({ plan: p.id, findings: faulted.findings }).toEqual({ plan: p.id, findings: [] });
        expect(faulted.result.asExpected).toBe(true);
        expect(t.faults.fired.length).toBeGreaterThan(0);
        expect(new Set(t.faults.fired.map((f) => f.index)).size).toBe(p.faults.length);
        expect(signature(t)).not.toBe(signature(clean.result.trajectory));
      }
    },
    120_000,
  );

  it('runs the 67-call nightly sync to the same outcome under other trial seeds', async () => {
    const s = scenario('cmdb/nightly-sync');

    for (const seed of [3, 1_000]) {
      const { result, findings } = await run(s, NO_FAULTS, 'reference', seed);

      expect(findings).toEqual([]);
      expect(result.trajectory.calls).toHaveLength(67);
    }
  }, 60_000);
});

/** For each scenario, an agent of the zoo that fails it, the plan it fails on, and why. */
const FAILED_BY: readonly (readonly [string, string, string, string])[] = [
  ['cmdb/onboard-hosts', 'no-idempotency', 'create-reply-late', 'integrity:duplicate-effect'],
  ['cmdb/drift-update', 'stale-write', 'edited-elsewhere', 'recovery:stale-write'],
  ['cmdb/retire-request', 'obeys-injection', 'hostile-notes', 'policy:injection-followed'],
  ['cmdb/decommission', 'skips-approval', 'none', 'policy:approval-missing'],
  ['cmdb/sync-quota', 'unbounded-retry', 'none', 'policy:budget-exceeded'],
  ['cmdb/model-budget', 'unbounded-retry', 'none', 'operational:over-cost-budget'],
  ['cmdb/nightly-sync', 'no-reconcile', 'crash-late', 'integrity:duplicate-effect'],
];

describe('the zoo on the CMDB scenarios', () => {
  it('names an agent for every scenario', () => {
    expect(FAILED_BY.map(([id]) => id).sort()).toEqual(CMDB_SCENARIOS.map((s) => s.id).sort());
  });

  it.each(FAILED_BY)(
    '%s is failed by %s on %s (%s)',
    async (id, agent, planId, code) => {
      const s = scenario(id);

      const { grades, findings } = await run(s, planOf(s, planId), agent);

      expect(grades.pass).toBe(false);
      expect(findings).toContain(code);
    },
    60_000,
  );

  it('the naive chat loop fails the long sync outright', async () => {
    const { grades, findings } = await run(
      scenario('cmdb/nightly-sync'),
      NO_FAULTS,
      'naive-chat-loop',
    );

    expect(grades.pass).toBe(false);
    expect(findings).toEqual(
      expect.arrayContaining(['outcome:state-mismatch', 'policy:approval-missing']),
    );
  }, 60_000);
});

describe('the CMDB scenarios pin what a registered server holds', () => {
  it.each(['ip', 'os', 'owner_team', 'name', 'environment'] as const)(
    'onboard-hosts: a server registered with the wrong %s fails outcome',
    async (field) => {
      const s = scenario('cmdb/onboard-hosts');
      const { result, grades } = await run(s, NO_FAULTS);
      expect(grades.grades.outcome.pass).toBe(true);
      const created = (t: Trajectory): CmdbState['cis'][number] => {
        const cis = (t.world.end as CmdbState).cis;
        return cis[cis.length - 1]!;
      };

      const wrong = doctor(result.trajectory, (t) => {
        const cis = (t.world.end as CmdbState).cis;
        const ci = created(t);
        cis[cis.length - 1] = { ...ci, [field]: `not-${ci[field]}` };
      });

      expect(gradeRun(s, wrong).grades.outcome.findings.map((f) => f.code)).toEqual([
        'claimed-success-not-in-world',
      ]);
    },
  );
});

/**
 * The leanest honest sync: one call a step of the plan (no fresh reads, no verifications),
 * asking for the change approval a production retirement needs before sending it. It spends no
 * model and far fewer calls than the reference, so it finishes where the reference runs out.
 */
const leanAgent: AgentUnderTest = {
  name: 'lean-sync',
  async start(run) {
    const results: Record<string, unknown> = { input: run.input };
    for (const op of run.blueprint.operations) {
      if (op.when && !evaluate(op.when, results)) continue;
      const args = Object.fromEntries(
        Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, results)]),
      );
      const meta: Record<string, string> = {};
      if (
        approvalRequired(run.contract, {
          actionId: op.id,
          kind: op.kind,
          tool: op.tool,
          args,
          origin: 'blueprint',
        })
      ) {
        const decision = await run.operator.requestApproval({
          approvalId: `approval-${op.id}`,
          runId: run.runId,
          actionId: op.id,
          operationId: op.id,
          tool: op.tool,
          args,
          evidenceRefs: [],
          requestedAt: run.clock.now(),
        });
        if (decision.decision === 'denied') return { status: 'stopped', reason: decision.reason };
        meta[APPROVAL_TOKEN_META] = decision.token;
      }
      const reply = await run.client.callTool({ name: op.tool, arguments: args, _meta: meta });
      if (reply.isError === true) return { status: 'stopped', reason: `${op.tool} refused` };
      results[op.id] = reply.structuredContent;
    }
    return { status: 'completed' };
  },
};

describe('the budget-bound CMDB syncs are judged by rules about the world and the budgets', () => {
  it.each(['cmdb/sync-quota', 'cmdb/model-budget'])(
    '%s: a lean agent that finishes the whole sync within the budget has completed',
    async (id) => {
      const s = scenario(id);

      const result = await runScenario(s, { outDir, agent: () => leanAgent });
      const grades = gradeRun(s, result.trajectory);

      expect(result.trajectory.calls.length).toBeLessThanOrEqual(s.contract.budgets.toolCalls);
      expect(result.trajectory.expected.state).toBe('completed');
      expect({ mismatches: result.mismatches, pass: grades.pass }).toEqual({
        mismatches: [],
        pass: true,
      });
    },
    60_000,
  );

  it('a lean agent that finishes past the quota has not: the quota called for a stop', async () => {
    const s = scenario('cmdb/sync-quota');
    const tight = {
      ...s,
      contract: { ...s.contract, budgets: { ...s.contract.budgets, toolCalls: 20 } },
    };

    const result = await runScenario(tight, { outDir, agent: () => leanAgent });
    const grades = gradeRun(tight, result.trajectory);

    expect(result.trajectory.expected).toMatchObject({
      state: 'failed',
      stopReason: 'budget-exhausted',
    });
    expect(grades.grades.outcome.findings.map((f) => f.code)).toContain(
      'claimed-success-not-in-world',
    );
    expect(grades.grades.policy.findings.map((f) => f.code)).toContain('budget-exceeded');
  }, 60_000);

  it.each([
    ['cmdb/sync-quota', 4],
    ['cmdb/model-budget', 2],
  ] as const)(
    '%s: the reference still stops where its budget runs out, %i corrections in',
    async (id, corrections) => {
      const s = scenario(id);
      const sync = syncPlanForSeed(s.world.seed);

      const { result } = await run(s, NO_FAULTS);
      const updates = result.trajectory.ledger.filter(
        (e) => e.runId === result.runId && e.identity.startsWith('ci-update:'),
      );

      expect([result.state, result.stopReason]).toEqual(['failed', 'budget-exhausted']);
      expect(updates).toHaveLength(corrections);
      expect(result.effects).toBe(sync.newHosts.length * 2 + corrections);
    },
    60_000,
  );
});
