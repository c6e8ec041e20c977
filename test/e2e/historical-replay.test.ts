import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults } from '../../reports/results.js';
import { FAULTLINE_BIN, faultlineInProcess, tempDir } from '../support/cli.js';

/** Three library scenarios, one of them losing the refund's acknowledgement on the live side. */
const SESSIONS = [
  { scenario: 'refunds/partial-refund', plan: 'refund-ack-lost' },
  { scenario: 'crm/update-contact', plan: 'none' },
  { scenario: 'tickets/triage-new-ticket', plan: 'none' },
] as const;

/**
 * The first rung of the promotion ladder, end to end: the reference recorded through a live
 * `faultline serve` (a real child process per session), replayed from the cassettes alone, and
 * judged by `promote --to historical-replay` on the replay runs only.
 */
describe('from live sessions to the historical-replay gate', () => {
  it(
    'records three sessions through serve, replays them without divergence for the reference, names the step a mutant leaves the path at, and gates on replay runs',
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('historical-replay');
      const recordings = join(dir, 'recordings');
      for (const { scenario, plan } of SESSIONS) {
        const served = join(dir, 'served', scenario.replace('/', '__'));
        const recorded = await faultlineInProcess([
          'record',
          scenario,
          '--agent',
          'reference',
          '--server',
          `node '${FAULTLINE_BIN}' serve ${scenario} --stdio --plan ${plan} --time-scale 0.01 --out '${served}'`,
          '--time-scale',
          '0.01',
          '--live-plan',
          plan,
          '--verdict',
          'pass',
          '--out',
          recordings,
        ]);
        expect(recorded.status, recorded.stderr).toBe(0);
        // The verdict given to record is the live side's own: serve graded the session a pass.
        const live = readResults(served).results;
        expect(live.map((r) => [r.scenarioId, r.faultPlanId, r.pass])).toEqual([
          [scenario, plan, true],
        ]);
      }

      // The reference replays its own sessions: every run passes, and none is in another mode.
      const referenceOut = join(dir, 'replay-reference');
      const reference = await faultlineInProcess([
        'run',
        '--replay',
        recordings,
        '--agent',
        'reference',
        '--trials',
        '20',
        '--out',
        referenceOut,
      ]);
      expect(reference.status, reference.stderr + reference.stdout).toBe(0);
      const replayed = readResults(referenceOut).results;
      expect(replayed).toHaveLength(60);
      expect(replayed.every((r) => r.mode === 'replay' && r.pass)).toBe(true);
      expect(reference.stdout).not.toMatch(/divergence/);

      // A mutant that writes without re-reading the order leaves the path: the step is named.
      const mutantOut = join(dir, 'replay-mutant');
      const mutant = await faultlineInProcess([
        'run',
        '--replay',
        recordings,
        '--agent',
        'stale-write',
        '--trials',
        '20',
        '--out',
        mutantOut,
      ]);
      expect(mutant.status).toBe(1);
      const failed = readResults(mutantOut).results.filter((r) => !r.pass);
      expect(failed.length).toBeGreaterThan(0);
      const shown = await faultlineInProcess(['show', failed[0]!.id, '--out', mutantOut]);
      expect(shown.stdout).toMatch(/replay divergence at step \d+: expected \w+ \{.*\}, got \w+/);

      const passes = await faultlineInProcess([
        'promote',
        referenceOut,
        '--to',
        'historical-replay',
      ]);
      expect(passes.status, passes.stdout + passes.stderr).toBe(0);
      const fails = await faultlineInProcess(['promote', mutantOut, '--to', 'historical-replay']);
      expect(fails.status).toBe(1);
      expect(fails.stdout).toMatch(/outcome/);
    },
  );
});
