import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gradeRun } from '../../../graders/index.js';
import { updateContact } from '../../../scenarios/library/crm/update-contact.js';
import type { Trajectory } from '../../../scenarios/trajectory.js';
import { codes } from '../../support/grader-fixtures.js';
import { runPlanUnder } from '../../support/trial-harness.js';

const outDir = mkdtempSync(join(tmpdir(), 'faultline-crm-library-'));
afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

describe('crm/update-contact#update-dropped: an update acknowledged and never applied', () => {
  const runUnder = (agent: string): Promise<Trajectory> =>
    runPlanUnder(updateContact, 'update-dropped', agent, outDir);

  it('the reference reads the account afresh, sees the old phone, and logs no note', async () => {
    const trajectory = await runUnder('reference');

    const { pass, grades } = gradeRun(updateContact, trajectory);

    const update = trajectory.calls.findIndex((c) => c.tool === 'update_account');
    expect(trajectory.calls[update]).toMatchObject({
      fault: 'unapplied-write',
      outcome: { type: 'ok' },
    });
    expect(trajectory.calls[update + 1]?.tool).toBe('get_account');
    expect(trajectory.calls.some((c) => c.tool === 'add_note')).toBe(false);
    expect(trajectory.outcome).toMatchObject({
      state: 'failed',
      stopReason: 'verification-failed',
    });
    expect(trajectory.ledger).toEqual([]);
    expect([...codes(grades)]).toEqual([]);
    expect(pass).toBe(true);
  });

  it('an agent that trusts the acknowledgement (unverified-finish) fails outcome and recovery', async () => {
    const trajectory = await runUnder('unverified-finish');

    const { pass, grades } = gradeRun(updateContact, trajectory);

    expect(trajectory.outcome.state).toBe('completed');
    expect(trajectory.ledger.map((e) => e.tool)).toEqual(['add_note']);
    expect(grades.outcome.findings.map((f) => f.code)).toEqual(['claimed-success-not-in-world']);
    expect(grades.recovery.findings.map((f) => f.code)).toEqual(['unverified-write']);
    expect(pass).toBe(false);
  });
});
