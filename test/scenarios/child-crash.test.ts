import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faultPlanSchema, type FaultPlanInput } from '../../faults/catalog.js';
import { STEP_PROBES, type CrashProbe } from '../../runtime/crash-probe.js';
import { InvalidInputError } from '../../runtime/errors.js';
import type { AgentRecords, AgentUnderTest } from '../../scenarios/agent.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial, type TrialResult } from '../../scenarios/engine.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { Trajectory } from '../../scenarios/trajectory.js';

// Each child process costs a tsx start-up (about a second, more on a busy machine).
const CHILD_TIMEOUT_MS = 30_000;

const outDir = mkdtempSync(join(tmpdir(), 'faultline-child-crash-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

type Mode = 'in-process' | 'child';
type Faults = FaultPlanInput['faults'];

const crashAt = (probe: CrashProbe, mode: Mode, operation = 'refund'): Faults[number] => ({
  kind: 'crash',
  trigger: { on: 'probe', probe, operation },
  mode,
});

function trial(
  scenario: Scenario,
  faults: Faults,
  options: { id?: string; agent?: () => AgentUnderTest } = {},
): Promise<TrialResult> {
  return runTrial({
    scenario,
    agent: options.agent ?? (() => new ReferenceAgent()),
    faultPlan: faultPlanSchema.parse({ id: options.id ?? 'crash', faults }),
    runId: `${scenario.id}#${options.id ?? 'crash'}`,
    outDir,
  });
}

/**
 * The world's own account: the refund and the message, each exactly once; the agent's records
 * agree (both writes confirmed, or reconciled after the crash hid the reply).
 */
function expectEachEffectOnce(result: TrialResult): void {
  const { trajectory } = result;
  const effects = trajectory.ledger.filter((e) => e.runId === trajectory.runId);
  expect(effects.map((e) => e.tool).sort()).toEqual(['issue_refund', 'send_customer_message']);
  const writes = (trajectory.agentRecords as AgentRecords).actions.filter(
    (a) => a.kind === 'write' && (a.status === 'confirmed' || a.status === 'reconciled'),
  );
  expect(writes.map((a) => a.operationId).sort()).toEqual(['notify', 'refund']);
}

function expectCompleted(result: TrialResult): void {
  expect(result.mismatches).toEqual([]);
  expect(result.asExpected).toBe(true);
  expect(result.trajectory.outcome.state).toBe('completed');
}

/** A child crash: the process died of SIGKILL and a new one, with a new pid, resumed the run. */
function expectChildCrash(crash: Trajectory['crashes'][number] | undefined, probe: CrashProbe) {
  expect(crash).toMatchObject({ probe, mode: 'child', signal: 'SIGKILL' });
  expect(crash?.pid).toEqual(expect.any(Number));
  expect(crash?.resumedPid).toEqual(expect.any(Number));
  expect(crash?.resumedPid).not.toBe(crash?.pid);
}

describe('a crash at every probe, in process', () => {
  for (const scenario of [partialRefund, fullRefund]) {
    it.each(STEP_PROBES)(
      `${scenario.id}: %s of refund, then restart, resume, each effect once`,
      async (probe) => {
        const result = await trial(scenario, [crashAt(probe, 'in-process')], { id: probe });

        expectCompleted(result);
        expectEachEffectOnce(result);
        expect(result.trajectory.crashes).toEqual([
          expect.objectContaining({ probe, mode: 'in-process', operation: 'refund', pid: null }),
        ]);
        expect(new Set(result.trajectory.calls.map((c) => c.incarnation))).toEqual(new Set([0, 1]));
      },
    );
  }
});

describe('a crash at every probe, as a child process killed with SIGKILL', () => {
  it.each(STEP_PROBES)(
    'refunds/partial-refund: %s of refund, then a new process on the same store resumes, each effect once',
    async (probe) => {
      const result = await trial(partialRefund, [crashAt(probe, 'child')], { id: probe });

      expectCompleted(result);
      expectEachEffectOnce(result);
      const { crashes, calls } = result.trajectory;
      expect(crashes).toHaveLength(1);
      expectChildCrash(crashes[0], probe);
      expect(crashes[0]?.operation).toBe('refund');
      // The first process made every call before the crash; the resumed one every call after.
      expect(calls[0]?.incarnation).toBe(0);
      expect(calls.at(-1)?.incarnation).toBe(1);
      expect(calls.filter((c) => c.at > crashes[0]!.at).every((c) => c.incarnation === 1)).toBe(
        true,
      );
    },
    CHILD_TIMEOUT_MS,
  );

  it.each(['before-send', 'after-apply'] as const)(
    'refunds/full-refund: %s of the approved refund, then resume without a second refund',
    async (probe) => {
      const result = await trial(fullRefund, [crashAt(probe, 'child')], { id: `full-${probe}` });

      expectCompleted(result);
      expectEachEffectOnce(result);
      expectChildCrash(result.trajectory.crashes[0], probe);
      // The approval came from the engine's operator, across the process boundary.
      expect(result.trajectory.operator.map((o) => o.kind)).toContain('approval.granted');
    },
    CHILD_TIMEOUT_MS,
  );
});

describe('a crash while the run waits, in process and as a child killed with SIGKILL', () => {
  /** The library's plans that crash a run mid-wait, each with the wait it interrupts. */
  const waits = [
    [fullRefund, 'crash-awaiting-approval', 'awaiting-approval', 'refund'],
    [fullRefund, 'crash-awaiting-retry-after', 'awaiting-retry-after', 'refund'],
    [partialRefund, 'crash-awaiting-backoff', 'awaiting-backoff', 'notify'],
  ] as const;
  const cases = waits.flatMap(([scenario, planId, probe, operation]) =>
    (['in-process', 'child'] as const).map((mode) => ({
      scenario,
      planId,
      probe,
      operation,
      mode,
    })),
  );

  it.each(cases)(
    '$scenario.id / $planId ($mode): resumed, each effect once, every write under its one key',
    async ({ scenario, planId, probe, operation, mode }) => {
      const faults = scenario.faultPlans
        .find((p) => p.id === planId)!
        .faults.map((f) => (f.kind === 'crash' ? { ...f, mode } : f));
      const result = await trial(scenario, faults, { id: `${planId}-${mode}` });

      expectCompleted(result);
      expectEachEffectOnce(result);
      const { crashes, calls } = result.trajectory;
      expect(crashes).toEqual([expect.objectContaining({ probe, mode, operation })]);
      if (mode === 'child') expectChildCrash(crashes[0], probe);
      for (const tool of ['issue_refund', 'send_customer_message']) {
        const keys = new Set(calls.filter((c) => c.tool === tool).map((c) => c.idempotencyKey));
        expect(keys.size).toBe(1);
        expect(keys.has(null)).toBe(false);
      }
    },
    CHILD_TIMEOUT_MS,
  );
});

describe('child mode keeps the engine in charge of time, faults and the operator', () => {
  /**
   * What must not depend on where the agent ran. The run's order of events numbers the agent's
   * own events too where it shares the engine's clock (in process), so the numbers differ; what
   * must not differ is the order of what the engine saw — each number is replaced by its rank.
   */
  const comparable = (t: Trajectory) => {
    const orders = [...t.calls, ...t.ledger, ...t.faults.fired, ...t.operator, ...t.crashes]
      .flatMap((x) => (x.order === undefined ? [] : [x.order]))
      .sort((a, b) => a - b);
    const rank = <T extends { order?: number | undefined }>(x: T): T =>
      x.order === undefined ? x : { ...x, order: orders.indexOf(x.order) + 1 };
    return {
      calls: t.calls.map(rank),
      ledger: t.ledger.map(rank),
      fired: t.faults.fired.map(rank),
      operator: t.operator.map(rank),
      outcome: t.outcome,
      virtualMs: t.times.virtualMs,
      crashes: t.crashes.map((c) => ({
        probe: c.probe,
        at: c.at,
        operation: c.operation,
        order: rank(c).order,
      })),
    };
  };

  it(
    'reproduces the in-process trajectory under virtual-time faults (rate limit, delayed approval)',
    async () => {
      const faults = (mode: Mode): Faults => [
        { kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 3_600_000 },
        { kind: 'rate-limit', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } },
        crashAt('after-result-saved', mode),
      ];
      // The same plan id and run id: the same seed, the same idempotency keys.
      const inProcess = await trial(fullRefund, faults('in-process'), { id: 'same' });
      const child = await trial(fullRefund, faults('child'), { id: 'same' });

      expectCompleted(child);
      expectEachEffectOnce(child);
      // An hour of approval wait and 30 s of rate-limit backoff, in virtual time.
      expect(child.trajectory.times.virtualMs).toBeGreaterThanOrEqual(3_630_000);
      expect(comparable(child.trajectory)).toEqual(comparable(inProcess.trajectory));
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'survives two crashes: three processes, each resuming the last one’s store',
    async () => {
      const result = await trial(
        partialRefund,
        [crashAt('before-send', 'child'), crashAt('after-apply', 'child', 'notify')],
        { id: 'twice' },
      );

      expectCompleted(result);
      expectEachEffectOnce(result);
      const [first, second] = result.trajectory.crashes;
      expectChildCrash(first, 'before-send');
      expectChildCrash(second, 'after-apply');
      expect(second?.pid).toBe(first?.resumedPid);
      expect(new Set([first?.pid, second?.pid, second?.resumedPid]).size).toBe(3);
      expect(new Set(result.trajectory.calls.map((c) => c.incarnation))).toEqual(
        new Set([0, 1, 2]),
      );
    },
    CHILD_TIMEOUT_MS,
  );

  it('refuses, before any process starts, what child mode cannot run', async () => {
    const modelFault = trial(partialRefund, [
      { kind: 'invalid-output', trigger: { on: 'proposal', nth: 1 } },
      crashAt('before-send', 'child'),
    ]);
    await expect(modelFault).rejects.toThrow(InvalidInputError);
    await expect(modelFault).rejects.toThrow(
      /faults\[0\]: a invalid-output fault cannot be combined with a child-process crash/,
    );

    const other: AgentUnderTest = {
      name: 'other',
      start: () => Promise.reject(new Error('never started')),
      resume: () => Promise.reject(new Error('never resumed')),
    };
    // An agent with probes but no module to rebuild it from in a child: the crash cannot reach
    // it, so it is not applicable (shown, never fired), not a refused plan.
    const probed: AgentUnderTest = { ...other, exposes: { probes: true } };
    const result = await trial(partialRefund, [crashAt('before-send', 'child')], {
      agent: () => probed,
      id: 'no-module',
    });
    expect(result.trajectory.faults.notApplicable).toEqual([
      {
        index: 0,
        kind: 'crash',
        reason: expect.stringMatching(/no module to rebuild it from/) as string,
      },
    ]);
    expect(result.trajectory.crashes).toEqual([]);
  });
});
