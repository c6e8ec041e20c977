import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faultPlanSchema, type FaultPlanInput } from '../../faults/catalog.js';
import { CRASH_PROBES, type CrashProbe } from '../../runtime/crash-probe.js';
import type { AgentRecords } from '../../scenarios/agent.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial, type TrialResult } from '../../scenarios/engine.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';

const outDir = mkdtempSync(join(tmpdir(), 'faultline-child-crash-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

type Mode = 'in-process' | 'child';

function crashPlan(probe: CrashProbe, mode: Mode, extra: FaultPlanInput['faults'] = []) {
  return faultPlanSchema.parse({
    id: `crash-${probe}-${mode}`,
    faults: [
      ...extra,
      { kind: 'crash', trigger: { on: 'probe', probe, operation: 'refund' }, mode },
    ],
  });
}

function trial(
  scenario: Scenario,
  probe: CrashProbe,
  mode: Mode,
  extra: FaultPlanInput['faults'] = [],
) {
  return runTrial({
    scenario,
    agent: () => new ReferenceAgent(),
    faultPlan: crashPlan(probe, mode, extra),
    outDir,
  });
}

/** The world's own account: each intended effect of the run exactly once, and nothing else. */
function expectEffectsOnce(result: TrialResult): void {
  const { trajectory } = result;
  const effects = trajectory.ledger.filter((e) => e.runId === trajectory.runId);
  expect(effects.map((e) => e.tool).sort()).toEqual(['issue_refund', 'send_customer_message']);
  const actions = (trajectory.agentRecords as AgentRecords).actions.filter(
    (a) => a.kind === 'write',
  );
  expect(actions.map((a) => a.status).sort()).toEqual(
    expect.arrayContaining([expect.stringMatching(/confirmed|reconciled/)]),
  );
}

describe('crash at every probe, in process', () => {
  it.each(CRASH_PROBES)('%s of refund: restarts, resumes, each effect once', async (probe) => {
    const result = await trial(partialRefund, probe, 'in-process');

    expect(result.mismatches).toEqual([]);
    expect(result.asExpected).toBe(true);
    expectEffectsOnce(result);
    expect(result.trajectory.crashes).toEqual([
      expect.objectContaining({ probe, mode: 'in-process', operation: 'refund', pid: null }),
    ]);
    expect(new Set(result.trajectory.calls.map((c) => c.incarnation))).toEqual(new Set([0, 1]));
  });
});

describe('crash at every probe, as a child process killed with SIGKILL', () => {
  it.each(CRASH_PROBES)(
    '%s of refund: restarts on the same store, resumes, each effect once',
    async (probe) => {
      const result = await trial(partialRefund, probe, 'child');

      expect(result.mismatches).toEqual([]);
      expect(result.asExpected).toBe(true);
      expectEffectsOnce(result);
      const { crashes, calls } = result.trajectory;
      expect(crashes).toHaveLength(1);
      const crash = crashes[0]!;
      expect(crash).toMatchObject({ probe, mode: 'child', operation: 'refund', signal: 'SIGKILL' });
      expect(crash.pid).toEqual(expect.any(Number));
      expect(crash.resumedPid).toEqual(expect.any(Number));
      expect(crash.resumedPid).not.toBe(crash.pid);
      // The first process made the calls before the crash, the second every one after it.
      expect(calls[0]?.incarnation).toBe(0);
      expect(calls.at(-1)?.incarnation).toBe(1);
    },
  );
});
