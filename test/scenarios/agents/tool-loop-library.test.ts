import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_SCENARIOS } from '../../../scenarios/library/index.js';
import {
  findingCodes,
  OracleServer,
  runWithOracle,
  type OracleRun,
} from '../../support/oracle-runs.js';
import { tmpOut } from '../../support/trial-harness.js';

const out = tmpOut();
const oracle = new OracleServer();
/** Every library plan whose one fault is a lost acknowledgement, run by tool-loop. */
const runs: { id: string; run: OracleRun }[] = [];
beforeAll(async () => {
  oracle.start();
  for (const scenario of BUILT_IN_SCENARIOS)
    for (const plan of scenario.faultPlans)
      if (plan.faults.length === 1 && plan.faults[0]?.kind === 'lost-ack')
        runs.push({
          id: `${scenario.id} / ${plan.id}`,
          run: await runWithOracle(oracle, { agent: 'tool-loop', scenario, plan, outDir: out }),
        });
}, 120_000);
afterAll(() => {
  oracle.stop();
  rmSync(out, { recursive: true, force: true });
});

describe('tool-loop under every lost acknowledgement of the library', () => {
  it('resends every write whose reply was lost without asking whether it took effect', () => {
    const fired = runs.filter((r) => r.run.result.faultsFired.includes('lost-ack'));
    expect(fired.length).toBeGreaterThanOrEqual(8);
    for (const { id, run } of fired) {
      expect(findingCodes(run), id).toContain('recovery:unreconciled-retry');
      expect(run.result.pass, id).toBe(false);
    }
  });

  it('makes the effect twice wherever the world takes the resend: no key, no check', () => {
    const twice = runs.filter((r) => findingCodes(r.run).includes('integrity:duplicate-effect'));
    expect(twice.map((r) => r.id)).toEqual([
      'refunds/partial-refund / refund-ack-lost',
      'refunds/partial-refund / message-ack-lost',
      'crm/update-contact / note-ack-lost',
      'tickets/p1-outage / reply-ack-lost',
      'notifications/security-notice / ack-lost',
      'research/lfp-battery-share / filing-ack-lost',
    ]);
    for (const { run } of twice)
      expect(run.trajectory.calls.every((c) => c.idempotencyKey === null)).toBe(true);
  });
});
