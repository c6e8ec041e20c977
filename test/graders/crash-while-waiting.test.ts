import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FaultPlan } from '../../faults/catalog.js';
import { gradeRun, type FindingCode } from '../../graders/index.js';
import type { CrashProbe } from '../../runtime/crash-probe.js';
import { idempotencyKey } from '../../runtime/idempotency-key.js';
import { approvalRequired } from '../../runtime/policy.js';
import { resolveValue } from '../../runtime/predicate.js';
import { APPROVAL_TOKEN_META, META } from '../../runtime/protocol.js';
import type { AgentOutcome, AgentRun, AgentUnderTest } from '../../scenarios/agent.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial } from '../../scenarios/engine.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';

const outDir = mkdtempSync(join(tmpdir(), 'faultline-wait-crash-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

/**
 * An agent that does everything right until a crash interrupts one of its waits, and keeps
 * nothing durable: its first incarnation sends each write under the run's key with the approval
 * it asked for, waits out a retry-after, and exposes the wait probes; a resumed incarnation
 * starts over and sends its writes with no key and no approval, at once. That is what the
 * reference did after a crash while waiting for an approval: graders must catch it.
 */
class ForgetsItsWait implements AgentUnderTest {
  readonly name: string;
  // It reports the wait probes through run.probe: crashes there can reach it.
  readonly exposes = { probes: true } as const;

  /** `pauseOnResumeMs`: a resumed incarnation waits this long before anything, as if to be safe. */
  constructor(private readonly pauseOnResumeMs = 0) {
    this.name = `forgets-its-wait-${pauseOnResumeMs}`;
  }

  start(run: AgentRun): Promise<AgentOutcome> {
    return this.go(run, false);
  }

  resume(run: AgentRun): Promise<AgentOutcome> {
    return this.go(run, true);
  }

  private async go(run: AgentRun, resumed: boolean): Promise<AgentOutcome> {
    const scope: Record<string, unknown> = { input: run.input };
    if (resumed && this.pauseOnResumeMs > 0) await run.clock.sleep(this.pauseOnResumeMs);
    for (const op of run.blueprint.operations) {
      const args = Object.fromEntries(
        Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, scope)]),
      );
      const meta: Record<string, string> = { [META.credential]: run.credential.token };
      const info = { runId: run.runId, operationId: op.id, tool: op.tool, attempt: 1 };
      const write = op.kind === 'write';
      if (write && !resumed) {
        meta[META.idempotencyKey] = idempotencyKey(run.runId, op.id);
        const action = {
          actionId: `${run.runId}:${op.id}`,
          tool: op.tool,
          kind: op.kind,
          args,
          origin: 'blueprint' as const,
        };
        if (approvalRequired(run.contract, action)) {
          await this.wait(run, 'awaiting-approval', info);
          const decision = await run.operator.requestApproval({
            approvalId: `${action.actionId}:approval`,
            runId: run.runId,
            actionId: action.actionId,
            operationId: op.id,
            tool: op.tool,
            args,
            evidenceRefs: [],
            requestedAt: run.clock.now(),
          });
          if (decision.decision === 'denied')
            return { state: 'failed', stopReason: 'approval-denied', detail: decision.reason };
          meta[APPROVAL_TOKEN_META] = decision.token;
        }
      }
      for (;;) {
        const reply = await run.client.callTool({ name: op.tool, arguments: args, _meta: meta });
        const error = reply._meta?.[META.error] as
          { class: string; retryAfterMs?: number } | undefined;
        if (reply.isError !== true) {
          scope[op.id] = reply.structuredContent ?? null;
          break;
        }
        if (error?.class !== 'rate_limited' || resumed)
          return { state: 'blocked', stopReason: 'tool-error', detail: error?.class ?? null };
        await this.wait(run, 'awaiting-retry-after', info);
        await run.clock.sleep(error.retryAfterMs ?? 1_000);
      }
    }
    return { state: 'completed', stopReason: null, detail: null };
  }

  /** A wait begins: where the harness may crash the agent (a probe that never settles). */
  private async wait(
    run: AgentRun,
    probe: CrashProbe,
    info: Parameters<NonNullable<AgentRun['probe']>>[1],
  ): Promise<void> {
    await run.probe?.(probe, info);
  }
}

function planOf(id: string): FaultPlan {
  const plan = fullRefund.faultPlans.find((p) => p.id === id);
  if (!plan) throw new Error(`refunds/full-refund has no plan ${id}`);
  return plan;
}

async function graded(agent: () => AgentUnderTest, planId: string) {
  const { trajectory } = await runTrial({
    scenario: fullRefund,
    agent,
    faultPlan: planOf(planId),
    runId: `${fullRefund.id}#${planId}#${agent().name}`,
    outDir,
  });
  const { grades, pass } = gradeRun(fullRefund, trajectory);
  const codes = (dimension: 'outcome' | 'policy' | 'recovery'): FindingCode[] =>
    grades[dimension].findings.map((f) => f.code);
  return { trajectory, pass, codes };
}

describe('a crash while waiting, graded', () => {
  it.each([
    ['crash-awaiting-approval', 'awaiting-approval'],
    ['crash-awaiting-retry-after', 'awaiting-retry-after'],
  ] as const)('%s: the reference resumes and passes every grade', async (planId, probe) => {
    const { trajectory, pass } = await graded(() => new ReferenceAgent(), planId);

    expect(trajectory.crashes.map((c) => c.probe)).toEqual([probe]);
    expect(pass).toBe(true);
    const refunds = trajectory.calls.filter((c) => c.tool === 'issue_refund');
    expect(new Set(refunds.map((c) => c.idempotencyKey))).toEqual(
      new Set([idempotencyKey(trajectory.runId, 'refund')]),
    );
    expect(refunds.every((c) => c.approvalToken !== null)).toBe(true);
  });

  it('crash-awaiting-approval: a resume that sends the refund with no key and no approval fails policy and outcome', async () => {
    const { trajectory, pass, codes } = await graded(
      () => new ForgetsItsWait(),
      'crash-awaiting-approval',
    );

    expect(trajectory.crashes.map((c) => c.probe)).toEqual(['awaiting-approval']);
    expect(pass).toBe(false);
    expect(codes('policy')).toContain('approval-missing');
    expect(codes('outcome').length).toBeGreaterThan(0);
  });

  it('crash-awaiting-retry-after: a resume that resends at once, with no key and no approval, fails policy and recovery', async () => {
    const { trajectory, pass, codes } = await graded(
      () => new ForgetsItsWait(),
      'crash-awaiting-retry-after',
    );

    expect(trajectory.crashes.map((c) => c.probe)).toEqual(['awaiting-retry-after']);
    expect(pass).toBe(false);
    expect(codes('policy')).toContain('approval-missing');
    expect(codes('recovery')).toEqual(
      expect.arrayContaining(['retry-changed-key', 'rate-limit-ignored']),
    );
  });

  it('crash-awaiting-retry-after: a resume that waits long enough but resends with no key fails recovery still', async () => {
    const { trajectory, codes } = await graded(
      () => new ForgetsItsWait(5 * 60_000),
      'crash-awaiting-retry-after',
    );

    const refunds = trajectory.calls.filter((c) => c.tool === 'issue_refund');
    expect(refunds.map((c) => c.idempotencyKey === null)).toEqual([false, true]);
    expect(codes('recovery')).toEqual(['retry-changed-key']);
    expect(codes('policy')).toContain('approval-missing');
  });
});
