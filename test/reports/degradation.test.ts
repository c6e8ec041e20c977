import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { degradation, faultKindOf, renderDegradation } from '../../reports/degradation.js';
import type { RunResult } from '../../reports/results.js';
import { expectInputError, faultlineInProcess, tempDir } from '../support/cli.js';
import { runRecord } from '../support/result-sets.js';

/** Trials of one task under one plan: `passes` of them pass, the rest fail recovery. */
function trials(
  agent: string,
  plan: string,
  kinds: string[],
  n: number,
  passes: number,
  task = 'tau-retail/test-000',
): RunResult[] {
  return Array.from({ length: n }, (_, trial) =>
    runRecord({
      agent,
      scenarioId: task,
      faultPlanId: plan,
      faultKinds: kinds,
      faultsFired: kinds,
      trial,
      ...(trial < passes ? {} : { fail: { recovery: ['unreconciled-retry'] } }),
    }),
  );
}

describe('the degradation table: pass^1 and pass^k per agent and fault kind', () => {
  const results = [
    ...trials('reference', 'none', [], 4, 4),
    ...trials('reference', 'lost-ack-a004', ['lost-ack'], 4, 4),
    ...trials('no-reconcile', 'none', [], 4, 4),
    // Two plans of one kind: 3 of 4 and 1 of 4.
    ...trials('no-reconcile', 'lost-ack-a004', ['lost-ack'], 4, 3),
    ...trials('no-reconcile', 'lost-ack-a006', ['lost-ack'], 4, 1),
    ...trials('no-reconcile', 'crash-a004', ['crash', 'timeout'], 4, 4),
  ];

  it("averages τ-bench's C(c,k)/C(n,k) over each kind's plans, k the most trials", () => {
    const table = degradation(results);

    expect(table.k).toBe(4);
    const row = (agent: string, kind: string) =>
      table.rows.find((r) => r.agent === agent && r.kind === kind);
    expect(row('reference', 'lost-ack')).toMatchObject({ runs: 4, passed: 4, pass1: 1, passK: 1 });
    // pass^1: (3/4 + 1/4) / 2; pass^4: (0 + 0) / 2 — no plan passed all four trials.
    expect(row('no-reconcile', 'lost-ack')).toMatchObject({
      runs: 8,
      passed: 4,
      pass1: 0.5,
      passK: 0,
      drop1: -0.5,
    });
    expect(row('no-reconcile', 'crash+timeout')).toMatchObject({ pass1: 1, drop1: 0 });
    // No faults first, then the kinds as the results show them.
    expect(table.rows.map((r) => `${r.agent}/${r.kind}`)).toEqual([
      'reference/no faults',
      'reference/lost-ack',
      'no-reconcile/no faults',
      'no-reconcile/lost-ack',
      'no-reconcile/crash+timeout',
    ]);
  });

  it('gives pass^2 at k = 2: C(3,2)/C(4,2) and C(1,2)/C(4,2) averaged', () => {
    const row = degradation(results, { k: 2 }).rows.find(
      (r) => r.agent === 'no-reconcile' && r.kind === 'lost-ack',
    );
    expect(row?.passK).toBeCloseTo((3 / 6 + 0) / 2, 10);
  });

  it('a run that passed its grades but did not end as its plan expects does not count', () => {
    const ended = { ...runRecord({ faultPlanId: 'none' }), mismatches: ['state: expected failed'] };
    expect(degradation([ended]).rows[0]).toMatchObject({ passed: 0, pass1: 0 });
  });

  it('names a model agent by its model, and a run without faults as no faults', () => {
    const run = runRecord({
      agent: 'tool-loop',
      model: { id: 'openai:gpt-x', promptHash: null, temperature: null, seed: null },
    });
    expect(faultKindOf(run)).toBe('no faults');
    expect(degradation([run]).rows[0]?.agent).toBe('tool-loop (openai:gpt-x)');
  });

  it('renders one line per row, with the Δ in points and pass^k only when k > 1', () => {
    const text = renderDegradation(degradation(results), { color: false });
    expect(text).toMatch(/│ no-reconcile +│ no faults +│ +4 │ +4 │ 100\.0% │ 100\.0% │ +│/);
    expect(text).toMatch(/│ +│ lost-ack +│ +8 │ +4 │ +50\.0% │ +0\.0% │ +−50\.0 │/);
    const once = renderDegradation(degradation(results, { k: 1 }), { color: false });
    expect(once).not.toContain('pass^4');
    expect(once).toContain('run with --trials k for pass^k');
  });
});

describe('faultline passk', () => {
  function set(name: string, runs: readonly RunResult[]): string {
    const dir = join(tempDir('passk'), name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'results.jsonl'), runs.map((r) => `${JSON.stringify(r)}\n`).join(''));
    return dir;
  }

  it('prints one block per result set given, and JSON on --json', async () => {
    const a = set('a', trials('reference', 'lost-ack-a004', ['lost-ack'], 2, 2));
    const b = set('b', trials('no-reconcile', 'lost-ack-a004', ['lost-ack'], 2, 1));

    const ran = await faultlineInProcess(['passk', a, b]);
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/│ reference +│ lost-ack +│ +2 │ +2 │ 100\.0% │ 100\.0% │/);
    expect(ran.stdout).toMatch(/│ no-reconcile +│ lost-ack +│ +2 │ +1 │ +50\.0% │ +0\.0% │/);

    const json = await faultlineInProcess([
      'passk',
      a,
      b,
      '--json',
      '--only',
      '!tau-retail/test-000',
    ]);
    expect(json.status).toBe(2);
    expect(json.stderr).toMatch(/--only !tau-retail\/test-000: no run of .* matches/);
    const whole = JSON.parse((await faultlineInProcess(['passk', b, '--json'])).stdout) as {
      k: number;
      rows: { agent: string; passK: number }[];
    };
    expect(whole).toMatchObject({ k: 2, rows: [{ agent: 'no-reconcile', passK: 0 }] });
  });

  it('refuses a bad --k and a folder with no results, in one line each', async () => {
    const a = set('a', trials('reference', 'none', [], 1, 1));
    expectInputError(
      await faultlineInProcess(['passk', a, '--k', '0']),
      /--k 0: expected a whole number ≥ 1/,
      'passk',
    );
    const empty = tempDir('passk-none');
    expectInputError(await faultlineInProcess(['passk', empty]), /no results here/, 'passk');
    expect(readFileSync(join(a, 'results.jsonl'), 'utf8')).toContain('"agent":"reference"');
  });
});
