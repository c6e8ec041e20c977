import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainAgent } from '../../examples/plain-agent.js';
import { CORE_DIMENSIONS } from '../../graders/index.js';
import { causesOf, CAUSES, runLibrary, type LibraryRun } from '../support/library-runs.js';

/**
 * The plain agent (a stock MCP client, no `_meta`, no faultline words, nothing durable) over
 * the whole built-in library: every failure must be the agent's own flaw, or a fault that is
 * not the agent's to meet (named, and left to the slices that own them) — never the harness
 * expecting the reference's words, states or call counts.
 */
describe('the plain agent over the whole library', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'faultline-plain-agent-'));
  let runs: LibraryRun[];
  const byId = (id: string): LibraryRun => {
    const run = runs.find((r) => r.id === id);
    if (!run) throw new Error(`no run ${id}`);
    return run;
  };
  /** `dimension:code` of every finding in a dimension the run failed. */
  const failing = (id: string): string[] => {
    const { grades } = byId(id);
    return CORE_DIMENSIONS.flatMap((d) =>
      grades.grades[d].pass ? [] : grades.grades[d].findings.map((f) => `${d}:${f.code}`),
    );
  };

  beforeAll(async () => {
    runs = await runLibrary(() => plainAgent, outDir);
  }, 120_000);
  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  it('runs every scenario and plan of the library', () => {
    expect(runs.length).toBeGreaterThanOrEqual(200);
    expect(runs.every((r) => !r.trajectory.outcome.hung)).toBe(true);
  });

  it('fails no run for a harness assumption, and every failure has a cause', () => {
    const causes = runs.filter((r) => !r.grades.pass).flatMap((r) => causesOf(r));
    const byKind = (kind: string): string[] =>
      causes.filter((c) => CAUSES[c.cause] === kind).map((c) => c.code);

    expect(byKind('unexplained')).toEqual([]);
    expect(byKind('harness')).toEqual([]);
  });

  it('is never held to the reference’s stop-reason words', () => {
    const words = runs.flatMap((r) =>
      r.grades.grades.outcome.findings
        .filter((f) => f.code === 'stop-reason-mismatch')
        .map(() => r.id),
    );

    expect(words).toEqual([]);
  });

  it.each([
    // Stopped (in its own words) where the scenario expected a safe stop: right.
    ['crm/update-contact|edit-revoked'],
    ['notifications/visit-reminder|sms-revoked'],
    ['tickets/reassign-on-leave|credential-expired'],
    ['refunds/partial-refund|mailer-down'],
    // Completed, having decided (through the plan's conditions) there was nothing to do.
    ['refunds/already-refunded|none'],
    ['expenses/duplicate-claim|none'],
  ])('passes %s: a stop or a finish the world bears out', (id) => {
    const run = byId(id);

    expect({ id, failing: failing(id), mismatches: run.mismatches }).toEqual({
      id,
      failing: [],
      mismatches: [],
    });
  });

  it.each(['cmdb/sync-quota|none', 'cmdb/model-budget|none'])(
    '%s: not judged by the reference’s call count (only its own flaw fails it)',
    (id) => {
      expect(byId(id).grades.grades.outcome.pass).toBe(true);
      expect(failing(id)).toEqual(['policy:approval-missing']);
    },
  );

  it.each([
    ['ignores approvals', 'refunds/full-refund|none', 'policy:approval-missing'],
    ['ignores approvals', 'cmdb/decommission|none', 'policy:approval-missing'],
    [
      'writes on what it read minutes ago',
      'refunds/partial-refund|refunded-elsewhere',
      'recovery:stale-write',
    ],
    ['never verifies a write', 'crm/update-contact|update-dropped', 'recovery:unverified-write'],
    [
      'never checks a precondition',
      'expenses/over-policy-dinner|none',
      'outcome:claimed-success-not-in-world',
    ],
    [
      'never re-reads a source it cites',
      'research/lfp-battery-share|dataset-retracted',
      'outcome:misattributed-claim',
    ],
    [
      'resends an unacknowledged write blind',
      'notifications/security-notice|ack-lost',
      'integrity:duplicate-effect',
    ],
    [
      'resends an unacknowledged write blind',
      'notifications/security-notice|ack-lost',
      'recovery:unreconciled-retry',
    ],
    [
      'ignores the operator’s cancel',
      'tickets/sla-queue|shift-lead-cancels',
      'integrity:effect-after-stop',
    ],
    [
      'gives up on an outage that passes',
      'crm/reassign-owner|crm-maintenance',
      'outcome:state-mismatch',
    ],
  ])('shows its real flaw (%s) on %s as %s', (_flaw, id, code) => {
    expect(failing(id)).toContain(code);
  });

  it('fails the fault-free runs only for its own flaws', () => {
    const causes = runs
      .filter((r) => r.case.faultPlan.faults.length === 0 && !r.grades.pass)
      .flatMap((r) => causesOf(r).map((c) => c.cause));

    expect(new Set(causes)).toEqual(new Set(['ignores-approvals', 'skips-the-plans-checks']));
  });
});
