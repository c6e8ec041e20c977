import { FAULTLINE_VERSION } from '../../bin/agent-source.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompareError,
  compareResults,
  mcnemarExact,
  renderComparison,
  type Comparison,
  type CompareRow,
  type RowComparison,
} from '../../reports/compare.js';
import { type RunResult } from '../../reports/results.js';
import type { Dimension } from '../../graders/grade.js';
import { makeResultSet, runRecord, type RunSpec } from '../support/result-sets.js';
import { tempDir } from '../support/cli.js';

/** n trials of one scenario and plan, each seeded by its trial; `failing` trials fail outcome. */
function trials(n: number, spec: RunSpec & { failing?: readonly number[] } = {}): RunResult[] {
  return Array.from({ length: n }, (_, trial) =>
    runRecord({
      ...spec,
      trial,
      seed: 100 + trial,
      fail: spec.failing?.includes(trial) ? { outcome: ['state-mismatch'] } : {},
    }),
  );
}

function row(comparison: Comparison, name: CompareRow): RowComparison {
  const found = comparison.rows.find((r) => r.row === name);
  if (!found) throw new Error(`no row ${name}`);
  return found;
}

/** Σ_{i ≤ m} C(n, i) exactly, as a BigInt. */
function lowerTail(n: number, m: number): bigint {
  let term = 1n;
  let sum = 1n;
  for (let i = 0; i < m; i++) {
    term = (term * BigInt(n - i)) / BigInt(i + 1);
    sum += term;
  }
  return sum;
}

describe('mcnemarExact', () => {
  it('gives the exact two-sided binomial p-value on known discordant counts', () => {
    expect(mcnemarExact(0, 5)).toBe(0.0625);
    expect(mcnemarExact(5, 0)).toBe(0.0625);
    expect(mcnemarExact(1, 5)).toBeCloseTo(14 / 64, 15);
    expect(mcnemarExact(2, 8)).toBeCloseTo(112 / 1024, 15);
    expect(mcnemarExact(0, 10)).toBeCloseTo(2 / 1024, 15);
  });

  it('is 1 when the discordant pairs split evenly, when there are none, or when the sum exceeds 1', () => {
    for (const b of [0, 1, 3, 40, 5000]) expect(mcnemarExact(b, b)).toBe(1);
    expect(mcnemarExact(0, 1)).toBe(1);
    expect(mcnemarExact(4, 5)).toBe(1);
  });

  it('never overflows: thousands of pairs give a finite p in 0..1', () => {
    expect(mcnemarExact(0, 5000)).toBe(0);
    const p = mcnemarExact(2500, 2600);
    expect(p).toBeGreaterThan(0.1);
    expect(p).toBeLessThan(0.2);
    expect(mcnemarExact(48_000, 52_000)).toBeGreaterThan(0);
    expect(mcnemarExact(48_000, 52_000)).toBeLessThan(1e-20);
  });

  it('agrees with exact big-integer arithmetic and is symmetric in b and c', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }), (b, c) => {
        const n = b + c;
        const m = Math.min(b, c);
        // 2·S/2^n to 40 decimal places (well below the tolerance, whose floor is 1e-18), then as a float.
        const scaled = (2n * lowerTail(n, m) * 10n ** 40n) / 2n ** BigInt(n);
        const exact = Math.min(1, Number(scaled) / 1e40);
        const p = mcnemarExact(b, c);
        expect(p).toBe(mcnemarExact(c, b));
        expect(Math.abs(p - exact)).toBeLessThanOrEqual(1e-12 * Math.max(exact, 1e-6));
      }),
    );
  });

  it('rejects counts that are not whole numbers ≥ 0', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(/b must be a whole number ≥ 0 \(got -1\)/);
    expect(() => mcnemarExact(1, 2.5)).toThrow(/c must be a whole number/);
  });
});

describe('compareResults on real result sets (reference against a mutant that never reconciles)', () => {
  let root = '';
  let reference: RunResult[] = [];
  let mutant: RunResult[] = [];
  beforeAll(async () => {
    root = tempDir('compare');
    const suite = { mode: 'supervised', trials: 2 } as const;
    reference = await makeResultSet(join(root, 'reference'), { ...suite, agent: 'reference' });
    mutant = await makeResultSet(join(root, 'no-reconcile'), { ...suite, agent: 'no-reconcile' });
  }, 60_000);
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('pairs runs of different agents by scenario, plan, seed and trial', () => {
    const comparison = compareResults(reference, mutant);

    expect(comparison.pairs).toBe(4);
    const version = FAULTLINE_VERSION;
    expect(comparison.a).toEqual({
      runs: 4,
      agents: ['reference'],
      agentVersions: [{ name: 'reference', version }],
      modes: ['supervised'],
    });
    expect(comparison.b).toEqual({
      runs: 4,
      agents: ['no-reconcile'],
      agentVersions: [{ name: 'no-reconcile', version }],
      modes: ['supervised'],
    });
    expect(comparison.agentChanged).toBe(true);
    expect(comparison.unpaired).toEqual({ a: [], b: [] });
    expect(comparison.k).toBe(2);
    expect(comparison.groups).toBe(2);
  });

  it('measures the drop on the dimensions the mutant fails, with McNemar on the two lost pairs', () => {
    const comparison = compareResults(reference, mutant);

    for (const name of ['overall', 'outcome', 'integrity', 'recovery'] as const) {
      const r = row(comparison, name);
      // Two lost pairs of four: larger than the threshold (0) but p = 0.5, so it does not gate.
      expect(r).toMatchObject({
        lost: 2,
        gained: 0,
        pValue: 0.5,
        delta: -0.5,
        exceedsThreshold: true,
        significant: false,
        gate: 'not-significant',
        regressed: false,
      });
      expect(r.a).toEqual({ passed: 4, rate: 1, passK: 1 });
      // pass^2 per plan: refund-ack-lost 1, message-ack-lost 0.
      expect(r.b).toEqual({ passed: 2, rate: 0.5, passK: 0.5 });
    }
    expect(row(comparison, 'policy')).toMatchObject({
      lost: 0,
      delta: 0,
      pValue: 1,
      gate: 'no-drop',
    });
    expect(comparison.regressed).toBe(false);
    expect(compareResults(reference, mutant, { alpha: 0.5 }).regressed).toBe(true);
  });

  it("lists each regression with B's failing dimensions, codes and both sides' replay commands", () => {
    const comparison = compareResults(reference, mutant);

    expect(comparison.fixes).toEqual([]);
    expect(comparison.regressions.map((r) => [r.faultPlanId, r.trial])).toEqual([
      ['message-ack-lost', 0],
      ['message-ack-lost', 1],
    ]);
    const [first] = comparison.regressions;
    expect(first?.failing).toEqual([
      { dimension: 'outcome', codes: ['claimed-success-not-in-world'] },
      { dimension: 'integrity', codes: ['duplicate-effect'] },
      { dimension: 'recovery', codes: ['unreconciled-retry'] },
    ]);
    expect(first?.aId).toBe('reference|supervised|refunds/partial-refund|message-ack-lost|0');
    expect(first?.bId).toBe('no-reconcile|supervised|refunds/partial-refund|message-ack-lost|0');
    expect(first?.replay).toEqual({
      a: 'npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --mode supervised',
      b: 'npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --agent no-reconcile --mode supervised',
    });
    expect(first?.modelCassettes).toEqual({});
  });

  it('reads the other way round as fixes, with no regression', () => {
    const comparison = compareResults(mutant, reference);

    expect(comparison.regressed).toBe(false);
    expect(comparison.regressions).toEqual([]);
    expect(comparison.fixes).toHaveLength(2);
    expect(comparison.fixes[0]?.replay.a).toContain('--agent no-reconcile');
    expect(row(comparison, 'overall')).toMatchObject({ lost: 0, gained: 2, delta: 0.5 });
  });

  it('regresses only when the drop exceeds maxRegression (alpha 1: any drop is significant)', () => {
    const anyP = { alpha: 1 };
    expect(compareResults(reference, mutant, { ...anyP, maxRegression: 0.49 }).regressed).toBe(
      true,
    );
    expect(compareResults(reference, mutant, { ...anyP, maxRegression: 0.5 }).regressed).toBe(
      false,
    );
    expect(
      row(compareResults(reference, mutant, { ...anyP, maxRegression: 0.5 }), 'overall'),
    ).toMatchObject({ exceedsThreshold: false, significant: true, gate: 'within-threshold' });
  });

  it('renders the tables, the regressions with both replay commands and the verdict', () => {
    const text = renderComparison(compareResults(reference, mutant, { alpha: 0.5 }), {
      color: false,
    });

    expect(text).toMatch(/│ overall \* +│ 100% +│ 50% +│ −50 pp +│ 2 +│ 0 +│ 0\.5 +│ regressed +│/);
    expect(text).toMatch(/│ policy \* +│ 100% +│ 100% +│ 0 pp +│ 0 +│ 0 +│ 1 +│ +│/);
    expect(text).toMatch(/│ pass\^2 +│ A +│ B +│ Δ +│/);
    expect(text).toContain(
      '      replay A: npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --mode supervised\n' +
        '      replay B: npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --agent no-reconcile --mode supervised',
    );
    expect(text).toContain('outcome: claimed-success-not-in-world · integrity: duplicate-effect');
    expect(text).toContain(
      '  recovery   dropped 50 pp > 0 pp allowed and p = 0.5 (b 2, c 0) ≤ α = 0.5: gates',
    );
    expect(text).toMatch(
      /B regressed: overall −50 pp \(p = 0\.5\), outcome −50 pp \(p = 0\.5\), integrity −50 pp \(p = 0\.5\), recovery −50 pp \(p = 0\.5\) — each a drop larger than the allowed 0 pp and significant at α = 0\.5/,
    );
    expect(text).not.toContain('\u001b[');
  });
});

describe('compareResults on hand-made records', () => {
  it('pairs across modes as well as agents', () => {
    const a = trials(3, { agent: 'v1', mode: 'supervised' });
    const b = trials(3, { agent: 'v2', mode: 'bounded', failing: [1] });

    const comparison = compareResults(a, b);

    expect(comparison.pairs).toBe(3);
    expect(comparison.regressions.map((r) => r.bId)).toEqual([
      'v2|bounded|refunds/full-refund|none|1',
    ]);
  });

  it('lists the runs either side has no partner for and keeps them out of the rates', () => {
    const a = [...trials(2), runRecord({ scenarioId: 'refunds/partial-refund', seed: 9 })];
    const b = [
      ...trials(2, { failing: [0] }),
      runRecord({
        scenarioId: 'refunds/partial-refund',
        seed: 10,
        fail: { policy: ['budget-exceeded'] },
      }),
      runRecord({ scenarioId: 'crm/update-contact' }),
    ];

    const comparison = compareResults(a, b);

    expect(comparison.pairs).toBe(2);
    expect(row(comparison, 'overall')).toMatchObject({ a: { rate: 1 }, b: { rate: 0.5 } });
    expect(row(comparison, 'policy')).toMatchObject({ a: { rate: 1 }, b: { rate: 1 } });
    expect(comparison.unpaired.a.map((u) => [u.scenarioId, u.seed, u.pass])).toEqual([
      ['refunds/partial-refund', 9, true],
    ]);
    expect(comparison.unpaired.b.map((u) => [u.scenarioId, u.seed, u.pass])).toEqual([
      ['refunds/partial-refund', 10, false],
      ['crm/update-contact', 7, true],
    ]);
    expect(comparison.unpaired.b[0]?.replay).toBe(
      'npx faultline run refunds/partial-refund --plan none --seed 10 --agent reference',
    );
    const text = renderComparison(comparison, { color: false });
    expect(text).toContain('Unpaired runs of A (1) — not in the rates above:');
    expect(text).toContain('  FAIL refunds/partial-refund / none · seed 10 · trial 0');
  });

  it('refuses two sets that share no runs', () => {
    const a = trials(2);
    const b = trials(2).map((r) => ({ ...r, seed: r.seed + 1 }));

    expect(() => compareResults(a, b)).toThrow(CompareError);
    expect(() => compareResults(a, b)).toThrow(/^A and B share no runs: /);
    expect(() => compareResults([], b)).toThrow(/A: no runs; B: 2 run\(s\)/);
    try {
      compareResults(a, b);
    } catch (error) {
      expect((error as CompareError).code).toBe('no-shared-runs');
    }
  });

  it('refuses a set holding two runs of one pair key, naming both', () => {
    const a = [runRecord({ mode: 'supervised' }), runRecord({ mode: 'bounded' })];

    expect(() => compareResults(a, [runRecord()])).toThrow(
      'A holds two runs of refunds/full-refund / none / seed 7 / trial 0 (reference|supervised|refunds/full-refund|none|0 and reference|bounded|refunds/full-refund|none|0)',
    );
  });

  it('takes k as the fewest pairs of any group, or as given; pass^k is null when no group has k', () => {
    const a = [...trials(3), ...trials(2, { faultPlanId: 'flaky' })];
    const b = [...trials(3, { failing: [2] }), ...trials(2, { faultPlanId: 'flaky' })];

    const byDefault = compareResults(a, b);
    const k3 = compareResults(a, b, { k: 3 });
    const k4 = compareResults(a, b, { k: 4 });

    expect(byDefault.k).toBe(2);
    // none: C(2,2)/C(3,2) = 1/3; flaky: 1.
    expect(row(byDefault, 'overall').b.passK).toBeCloseTo((1 / 3 + 1) / 2, 12);
    expect(row(byDefault, 'overall').deltaK).toBeCloseTo((1 / 3 + 1) / 2 - 1, 12);
    expect([k3.groupsWithK, k3.groups]).toEqual([1, 2]);
    expect(row(k3, 'overall').b.passK).toBe(0);
    expect(row(k4, 'overall')).toMatchObject({
      a: { passK: null },
      b: { passK: null },
      deltaK: null,
    });
    expect(() => compareResults(a, b, { k: 0 })).toThrow(RangeError);
  });

  it('regresses on a core dimension, never on a drop in a non-core one', () => {
    const a = trials(4);
    const slower = a.map((r) =>
      runRecord({ trial: r.trial, seed: r.seed, fail: { efficiency: ['call-loop'] } }),
    );
    const policyBreach = a.map((r, i) =>
      runRecord({
        trial: r.trial,
        seed: r.seed,
        fail: i === 0 ? { policy: ['approval-missing'] } : {},
      }),
    );

    const efficiency = compareResults(a, slower, { alpha: 1 });
    const policy = compareResults(a, policyBreach, { alpha: 1 });

    expect(row(efficiency, 'efficiency')).toMatchObject({
      delta: -1,
      lost: 4,
      gate: 'not-core',
      regressed: false,
    });
    expect(row(efficiency, 'efficiency').pValue).toBe(0.125);
    expect(efficiency.regressed).toBe(false);
    expect(row(policy, 'policy')).toMatchObject({ delta: -0.25, regressed: true });
    expect(policy.regressed).toBe(true);
  });

  it('counts a drop equal to maxRegression as within it (no rounding error)', () => {
    const a = trials(10);
    const b = trials(10, { failing: [3] });

    const anyP = { alpha: 1 };

    expect(compareResults(a, b, { ...anyP, maxRegression: 0.1 }).regressed).toBe(false);
    expect(compareResults(a, b, { ...anyP, maxRegression: 0.09 }).regressed).toBe(true);
    expect(compareResults(a, b, anyP).regressed).toBe(true);
    expect(() => compareResults(a, b, { maxRegression: 1.5 })).toThrow(RangeError);
  });
});

describe('mcnemarExact on the values the gate relies on', () => {
  it('b=10, c=0 gives 2/2^10 ≈ 0.001953; b=3, c=3 and b=0, c=0 give 1', () => {
    expect(mcnemarExact(10, 0)).toBeCloseTo(0.001953125, 12);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });

  it('stays finite, in 0..1 and monotone for a million discordant pairs', () => {
    const near = mcnemarExact(500_000, 500_500);
    const far = mcnemarExact(499_000, 501_000);
    expect(Number.isFinite(near) && Number.isFinite(far)).toBe(true);
    expect(near).toBeGreaterThan(far);
    expect(near).toBeLessThanOrEqual(1);
    expect(far).toBeGreaterThan(0);
    // The normal approximation: z = 2000/√1e6 = 2, two-sided p ≈ 0.0455.
    expect(far).toBeCloseTo(0.0455, 3);
  });
});

/** A model's version as records carry it, with a prompt of the given hash. */
const modelWith = (promptHash: string): NonNullable<RunResult['model']> => ({
  id: 'openai:gpt-test',
  promptHash,
  temperature: 0,
  seed: 1,
});
const PROMPT_A = 'sha256:aaaaaaaaaaaa';
const PROMPT_B = 'sha256:bbbbbbbbbbbb';

/**
 * One side of a prompt comparison: `n` trials of a lost-acknowledgement plan and of a fault-free
 * plan, made by tool-loop with the given prompt; `fail` says which trials fail what.
 */
function promptSide(
  promptHash: string,
  n: number,
  fail: {
    ackLost?: { trials: readonly number[]; dims: Partial<Record<Dimension, string[]>> };
    none?: { trials: readonly number[]; dims: Partial<Record<Dimension, string[]>> };
  } = {},
): RunResult[] {
  const side = (faultPlanId: string, which?: (typeof fail)['none']): RunResult[] =>
    Array.from({ length: n }, (_, trial) => {
      const seed = 100 + trial;
      const words = `--plan ${faultPlanId} --seed ${seed} --agent tool-loop --model openai:gpt-test`;
      const prompt = promptHash === PROMPT_A ? 'A.md' : 'B.md';
      return runRecord({
        scenarioId: 'refunds/partial-refund',
        faultPlanId,
        trial,
        seed,
        agent: 'tool-loop',
        agentVersion: '1.0.0',
        model: modelWith(promptHash),
        contractVersion: '1',
        policyVersion: null,
        modelCassettes: { dir: `cassettes/${prompt}`, mode: 'record' },
        replay: `npx faultline run refunds/partial-refund ${words} --prompt ${prompt}`,
        fail: which?.trials.includes(trial) ? which.dims : {},
      });
    });
  return [...side('refund-ack-lost', fail.ackLost), ...side('none', fail.none)];
}

describe('compare two prompts of one model (synthetic result sets)', () => {
  // B's prompt forgets the idempotency key: every lost acknowledgement becomes a duplicate
  // refund (recovery and integrity fail, 10 of 10), and 2 fault-free runs fail outcome.
  const a = promptSide(PROMPT_A, 10);
  const b = promptSide(PROMPT_B, 10, {
    ackLost: {
      trials: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      dims: { recovery: ['duplicate-write-after-lost-ack'], integrity: ['duplicate-effect'] },
    },
    none: { trials: [3, 7], dims: { outcome: ['state-mismatch'] } },
  });

  it('says what differs: the prompt hash, and nothing else of agent, model, contract or policy', () => {
    const comparison = compareResults(a, b, { maxRegression: 0.05 });

    expect(comparison.versions.filter((v) => v.changed)).toEqual([
      { aspect: 'prompt', a: [PROMPT_A], b: [PROMPT_B], changed: true },
    ]);
    expect(comparison.versions.map((v) => [v.aspect, v.a])).toEqual([
      ['agent', ['tool-loop 1.0.0']],
      ['model', ['openai:gpt-test']],
      ['prompt', [PROMPT_A]],
      ['temperature', ['0']],
      ['model-seed', ['1']],
      ['contract', ['1']],
      ['policy', ['none']],
      ['mode', ['supervised']],
    ]);
    expect(comparison.agentChanged).toBe(false);
  });

  it('gates on the significant recovery drop and not on the insignificant outcome drop', () => {
    const comparison = compareResults(a, b, { maxRegression: 0.05 });

    expect(row(comparison, 'recovery')).toMatchObject({
      lost: 10,
      gained: 0,
      delta: -0.5,
      exceedsThreshold: true,
      significant: true,
      gate: 'regressed',
    });
    expect(row(comparison, 'recovery').pValue).toBeCloseTo(0.001953125, 12);
    expect(row(comparison, 'outcome')).toMatchObject({
      lost: 2,
      gained: 0,
      pValue: 0.5,
      exceedsThreshold: true,
      significant: false,
      gate: 'not-significant',
      regressed: false,
    });
    expect(row(comparison, 'outcome').delta).toBeCloseTo(-0.1, 12);
    expect(row(comparison, 'policy').gate).toBe('no-drop');
    expect(comparison.alpha).toBe(0.05);
    expect(comparison.regressed).toBe(true);
  });

  it('gives pass^k per dimension and overall over the trials', () => {
    const comparison = compareResults(a, b, { k: 3 });

    // Per (scenario, plan) group of 10 trials: ack-lost passes 0 of 10 on recovery and
    // integrity; the fault-free group passes 8 of 10 on outcome: C(8,3)/C(10,3) = 56/120.
    const expected: Partial<Record<CompareRow, [number, number]>> = {
      overall: [1, (0 + 56 / 120) / 2],
      outcome: [1, (1 + 56 / 120) / 2],
      policy: [1, 1],
      integrity: [1, 0.5],
      recovery: [1, 0.5],
    };
    for (const [name, [passA, passB]] of Object.entries(expected)) {
      const r = row(comparison, name as CompareRow);
      expect(r.a.passK).toBeCloseTo(passA, 12);
      expect(r.b.passK).toBeCloseTo(passB, 12);
      expect(r.deltaK).toBeCloseTo(passB - passA, 12);
    }
    expect([comparison.k, comparison.groupsWithK, comparison.groups]).toEqual([3, 2, 2]);
  });

  it('lists every regression with the replay commands of A and B and where their model replies are', () => {
    const comparison = compareResults(a, b);

    expect(comparison.regressions).toHaveLength(12);
    const first = comparison.regressions[0];
    expect(first?.replay).toEqual({
      a: 'npx faultline run refunds/partial-refund --plan refund-ack-lost --seed 100 --agent tool-loop --model openai:gpt-test --prompt A.md',
      b: 'npx faultline run refunds/partial-refund --plan refund-ack-lost --seed 100 --agent tool-loop --model openai:gpt-test --prompt B.md',
    });
    expect(first?.modelCassettes).toEqual({
      a: { dir: 'cassettes/A.md', mode: 'record' },
      b: { dir: 'cassettes/B.md', mode: 'record' },
    });
  });

  it('renders what differs, both figures of the gate and why, and the replays', () => {
    const text = renderComparison(compareResults(a, b, { maxRegression: 0.05 }), {
      color: false,
      labels: { a: 'a', b: 'b' },
    });

    expect(text).toContain(
      'What differs between A and B:\n  prompt hash  sha256:aaaaaaaaaaaa → sha256:bbbbbbbbbbbb\n',
    );
    expect(text).toContain(
      'The same on both sides: agent tool-loop 1.0.0 · model openai:gpt-test · temperature 0 · model seed 1 · contract version 1 · policy version none · mode supervised',
    );
    expect(text).toMatch(
      /│ dimension +│ A +│ B +│ Δ +│ b: A✓ B✗ +│ c: A✗ B✓ +│ McNemar p +│ gate +│/,
    );
    expect(text).toMatch(
      /│ recovery \* +│ 100% +│ 50% +│ −50 pp +│ 10 +│ 0 +│ 0\.002 +│ regressed +│/,
    );
    expect(text).toMatch(
      /│ outcome \* +│ 100% +│ 90% +│ −10 pp +│ 2 +│ 0 +│ 0\.5 +│ not significant +│/,
    );
    expect(text).toContain(
      'Gate — a core row gates when its drop is larger than 5 pp AND significant at α = 0.05:',
    );
    expect(text).toContain(
      '  recovery   dropped 50 pp > 5 pp allowed and p = 0.002 (b 10, c 0) ≤ α = 0.05: gates',
    );
    expect(text).toContain(
      '  outcome    dropped 10 pp > 5 pp allowed, but p = 0.5 (b 2, c 0) > α = 0.05: not significant, does not gate',
    );
    expect(text).toContain(
      '      replay A: npx faultline run refunds/partial-refund --plan refund-ack-lost --seed 100 --agent tool-loop --model openai:gpt-test --prompt A.md\n' +
        '      replay B: npx faultline run refunds/partial-refund --plan refund-ack-lost --seed 100 --agent tool-loop --model openai:gpt-test --prompt B.md\n' +
        '      model replies of A: recorded in cassettes/A.md (offline: add --replay-model cassettes/A.md)\n' +
        '      model replies of B: recorded in cassettes/B.md (offline: add --replay-model cassettes/B.md)',
    );
    expect(text).toMatch(
      /B regressed: overall −60 pp \(p = 0\.00049\), integrity −50 pp \(p = 0\.002\), recovery −50 pp \(p = 0\.002\) — each a drop larger than the allowed 5 pp and significant at α = 0\.05$/,
    );
  });

  it('does not gate on a drop that is larger than the threshold but not significant, and says so', () => {
    const small = promptSide(PROMPT_B, 10, {
      none: { trials: [3, 7], dims: { outcome: ['state-mismatch'] } },
    });

    const comparison = compareResults(a, small, { maxRegression: 0.05 });
    const text = renderComparison(comparison, { color: false });

    expect(comparison.regressed).toBe(false);
    expect(row(comparison, 'outcome').gate).toBe('not-significant');
    expect(text).toMatch(
      /B did not regress: overall −10 pp \(p = 0\.5\), outcome −10 pp \(p = 0\.5\) dropped more than the allowed 5 pp, but not significantly at α = 0\.05$/,
    );
  });

  it('says what differs in contract and policy versions, and a replay that already replays the model', () => {
    const older = a.map((r) => ({ ...r, contractVersion: '2', policyVersion: 'policy-gate@1' }));
    const replayed = b.map((r) => ({
      ...r,
      replay: `${r.replay} --replay-model cassettes/B`,
      modelCassettes: { dir: 'cassettes/B', mode: 'replay' as const },
    }));

    const comparison = compareResults(older, replayed);
    const text = renderComparison(comparison, { color: false });

    expect(comparison.versions.filter((v) => v.changed).map((v) => v.aspect)).toEqual([
      'prompt',
      'contract',
      'policy',
    ]);
    expect(text).toContain('  contract version  2 → 1\n');
    expect(text).toContain('  policy version    policy-gate@1 → none\n');
    expect(text).toContain('      model replies of B: replayed from cassettes/B\n');
  });

  it('reads records made before versions as unknown, and refuses an alpha outside (0, 1]', () => {
    const bare = trials(2);
    expect(
      compareResults(bare, bare)
        .versions.filter((v) => ['contract', 'policy', 'model'].includes(v.aspect))
        .map((v) => [v.aspect, v.a]),
    ).toEqual([
      ['model', ['none']],
      ['contract', ['unknown']],
      ['policy', ['unknown']],
    ]);
    expect(renderComparison(compareResults(bare, bare), { color: false })).toContain(
      'What differs between A and B: nothing in their versions',
    );
    expect(() => compareResults(bare, bare, { alpha: 0 })).toThrow(/alpha must be in \(0, 1\]/);
    expect(() => compareResults(bare, bare, { alpha: 1.5 })).toThrow(RangeError);
  });
});
