import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTLINE_VERSION } from '../../bin/agent-source.js';
import type { Comparison } from '../../reports/compare.js';
import { faultlineInProcess, expectInputError, tempDir } from '../support/cli.js';
import { makeResultSet } from '../support/result-sets.js';

let root = '';
/** Result sets of the reference and of a mutant that never reconciles, in supervised mode. */
let reference = '';
let mutant = '';

/** A copy of the reference set whose results.jsonl lines are rewritten by `edit`. */
function variant(name: string, edit: (lines: string[]) => string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const lines = readFileSync(join(reference, 'results.jsonl'), 'utf8').trimEnd().split('\n');
  writeFileSync(join(dir, 'results.jsonl'), edit(lines));
  return dir;
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .sort()
      .map((f) => {
        try {
          return [f, readFileSync(join(dir, f), 'utf8')];
        } catch {
          return [f, '(dir)'];
        }
      }),
  );
}

beforeAll(async () => {
  root = tempDir('compare-cli');
  reference = join(root, 'reference');
  mutant = join(root, 'mutant');
  for (const [agent, out] of [
    ['reference', reference],
    ['no-reconcile', mutant],
  ] as const) {
    await makeResultSet(out, { agent, mode: 'supervised', trials: 2 });
  }
}, 60_000);
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('faultline compare A B', () => {
  it('exits 1 when B regressed, printing what differs, the rates, McNemar, pass^k, the gate, regressions with replays', async () => {
    const before = { a: snapshot(reference), b: snapshot(mutant) };

    // Two lost pairs give p = 0.5: only an alpha that lenient lets them gate.
    const ran = await faultlineInProcess(['compare', reference, mutant, '--alpha', '0.5']);

    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(1);
    const v = FAULTLINE_VERSION;
    expect(ran.stdout).toContain(
      `A: ${reference} — 4 run(s), agent reference ${v}, mode supervised`,
    );
    expect(ran.stdout).toContain(
      `B: ${mutant} — 4 run(s), agent no-reconcile ${v}, mode supervised`,
    );
    expect(ran.stdout).toContain(
      `What differs between A and B:\n  agent  reference ${v} → no-reconcile ${v}\n`,
    );
    expect(ran.stdout).toContain(
      'The same on both sides: model none · prompt hash none · temperature none · model seed none · contract version 1 · policy version policy-gate@1 · mode supervised',
    );
    expect(ran.stdout).toContain('4 pair(s) by scenario, fault plan, seed and trial');
    expect(ran.stdout).toMatch(
      /│ dimension +│ A +│ B +│ Δ +│ b: A✓ B✗ +│ c: A✗ B✓ +│ McNemar p +│ gate +│/,
    );
    expect(ran.stdout).toMatch(
      /│ overall \* +│ 100% +│ 50% +│ −50 pp +│ 2 +│ 0 +│ 0\.5 +│ regressed │/,
    );
    expect(ran.stdout).toMatch(
      /│ integrity \* +│ 100% +│ 50% +│ −50 pp +│ 2 +│ 0 +│ 0\.5 +│ regressed │/,
    );
    expect(ran.stdout).toContain(
      '  integrity  dropped 50 pp > 0 pp allowed and p = 0.5 (b 2, c 0) ≤ α = 0.5: gates',
    );
    expect(ran.stdout).toMatch(/│ policy \* +│ 100% +│ 100% +│ 0 pp +│ 0 +│ 0 +│ 1 +│ +│/);
    expect(ran.stdout).toMatch(
      /│ pass\^2 +│ A +│ B +│ Δ +│\n│ overall +│ 100% +│ 50% +│ −50 pp +│/,
    );
    expect(ran.stdout).toContain('Regressions — passed in A, failed in B (2):');
    expect(ran.stdout).toContain(
      '  ✗ refunds/partial-refund / message-ack-lost · seed 7 · trial 0\n' +
        '      outcome: claimed-success-not-in-world · integrity: duplicate-effect · recovery: unreconciled-retry\n' +
        '      replay A: npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --mode supervised\n' +
        '      replay B: npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --agent no-reconcile --mode supervised',
    );
    expect(ran.stdout).toContain('Fixes — failed in A, passed in B (0): none');
    expect(ran.stdout).toContain('Unpaired runs of A (0): none');
    expect(ran.stdout).toContain(
      'B regressed: overall −50 pp (p = 0.5), outcome −50 pp (p = 0.5), integrity −50 pp (p = 0.5), recovery −50 pp (p = 0.5) — each a drop larger than the allowed 0 pp and significant at α = 0.5',
    );
    expect(ran.stdout).not.toContain('\u001b[');
    expect({ a: snapshot(reference), b: snapshot(mutant) }).toEqual(before);
  });

  it('exits 0 when the drop is larger than the threshold but not significant at the default alpha, saying so', async () => {
    const ran = await faultlineInProcess(['compare', reference, mutant]);

    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(
      /│ overall \* +│ 100% +│ 50% +│ −50 pp +│ 2 +│ 0 +│ 0\.5 +│ not significant │/,
    );
    expect(ran.stdout).toContain(
      '  recovery   dropped 50 pp > 0 pp allowed, but p = 0.5 (b 2, c 0) > α = 0.05: not significant, does not gate',
    );
    expect(ran.stdout).toContain(
      'B did not regress: overall −50 pp (p = 0.5), outcome −50 pp (p = 0.5), integrity −50 pp (p = 0.5), recovery −50 pp (p = 0.5) dropped more than the allowed 0 pp, but not significantly at α = 0.05',
    );
  });

  it('exits 0 when the drop is within --threshold, however significant', async () => {
    const ran = await faultlineInProcess([
      'compare',
      reference,
      mutant,
      '--threshold',
      '0.5',
      '--alpha',
      '1',
    ]);

    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('B did not regress: no core dimension dropped more than 50 pp');
  });

  it("takes threshold and alpha from the config's compare section, and --threshold over it", async () => {
    const config = join(root, 'lenient.config.mjs');
    writeFileSync(config, 'export default { compare: { maxRegression: 0.5, alpha: 0.5 } };\n');

    expect(
      (await faultlineInProcess(['compare', reference, mutant, '--config', config])).status,
    ).toBe(0);
    // p = 0.5 gates only under the config's alpha 0.5: the default 0.05 would not.
    expect(
      (
        await faultlineInProcess([
          'compare',
          reference,
          mutant,
          '--config',
          config,
          '--threshold',
          '0.4',
        ])
      ).status,
    ).toBe(1);
  });

  it('exits 0 the other way round, listing the fixes with the replay of the failing run', async () => {
    const ran = await faultlineInProcess(['compare', mutant, reference, '--alpha', '1']);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('Regressions — passed in A, failed in B (0): none');
    expect(ran.stdout).toContain('Fixes — failed in A, passed in B (2):');
    expect(ran.stdout).toContain(
      'replay A: npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --agent no-reconcile --mode supervised',
    );
  });

  it('reads results.jsonl files as well as folders, and a set against itself does not regress', async () => {
    const ran = await faultlineInProcess([
      'compare',
      join(reference, 'results.jsonl'),
      reference,
      '--k',
      '1',
    ]);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/│ pass\^1 +│ A +│ B +│ Δ +│/);
  });

  it('lists unpaired runs of each side', async () => {
    const fewer = variant('fewer', (lines) => `${lines.slice(1).join('\n')}\n`);

    const ran = await faultlineInProcess(['compare', reference, fewer]);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('3 pair(s) by scenario, fault plan, seed and trial');
    expect(ran.stdout).toContain(
      'Unpaired runs of A (1) — not in the rates above:\n' +
        '  pass refunds/partial-refund / refund-ack-lost · seed 7 · trial 0\n' +
        '      replay: npx faultline run refunds/partial-refund --plan refund-ack-lost --seed 7 --mode supervised',
    );
    expect(ran.stdout).toContain('Unpaired runs of B (0): none');
  });

  it('prints the comparison as JSON with --json', async () => {
    const ran = await faultlineInProcess(['compare', reference, mutant, '--json']);

    expect(ran.status).toBe(0);
    const json = JSON.parse(ran.stdout) as Comparison & { sources: { a: string; b: string } };
    expect(json.sources).toEqual({ a: reference, b: mutant });
    expect(json.a.agentVersions).toEqual([{ name: 'reference', version: FAULTLINE_VERSION }]);
    expect(json.b.agentVersions).toEqual([{ name: 'no-reconcile', version: FAULTLINE_VERSION }]);
    expect(json.agentChanged).toBe(true);
    expect(json.versions.filter((v) => v.changed).map((v) => v.aspect)).toEqual(['agent']);
    expect(json.versions.find((v) => v.aspect === 'policy')?.a).toEqual(['policy-gate@1']);
    expect([json.maxRegression, json.alpha, json.k]).toEqual([0, 0.05, 2]);
    expect(json.regressed).toBe(false);
    expect(json.pairs).toBe(4);
    expect(json.rows[0]).toMatchObject({
      row: 'overall',
      lost: 2,
      gained: 0,
      pValue: 0.5,
      exceedsThreshold: true,
      significant: false,
      gate: 'not-significant',
      a: { passK: 1 },
      b: { passK: 0.5 },
    });
    expect(json.regressions).toHaveLength(2);
    expect(json.regressions[0]?.replay.b).toContain('--agent no-reconcile');
  });
});

describe('faultline compare: bad input exits 2 with one line naming what and where', () => {
  it('a results file with a corrupt line', async () => {
    const dir = variant(
      'corrupt',
      (lines) => `${[lines[0], '{"format": "faultl', ...lines.slice(2)].join('\n')}\n`,
    );

    expectInputError(
      await faultlineInProcess(['compare', reference, dir]),
      new RegExp(
        `^faultline compare: ${dir}/results\\.jsonl:2: not JSON — the results file is corrupt$`,
      ),
    );
  });

  it('a results file cut short by a kill', async () => {
    const dir = variant(
      'truncated',
      (lines) => `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 40)}`,
    );

    expectInputError(
      await faultlineInProcess(['compare', dir, reference]),
      new RegExp(`^faultline compare: ${dir}/results\\.jsonl:4: truncated \\(`),
    );
  });

  it('a results file of another format version', async () => {
    const dir = variant(
      'version',
      (lines) =>
        `${lines.map((l, i) => (i === 2 ? l.replace('"version":1', '"version":2') : l)).join('\n')}\n`,
    );

    expectInputError(
      await faultlineInProcess(['compare', reference, dir]),
      new RegExp(
        `^faultline compare: ${dir}/results\\.jsonl:3: format version 2; this faultline reads version 1$`,
      ),
    );
  });

  it('a folder with no results', async () => {
    const empty = join(root, 'nothing-here');

    expectInputError(
      await faultlineInProcess(['compare', reference, empty]),
      new RegExp(`^faultline compare: ${empty}/results\\.jsonl: no results here`),
    );
  });

  it('two sets that share no runs', async () => {
    const reseeded = variant('reseeded', (lines) =>
      lines
        .map((l) => {
          const record = JSON.parse(l) as { seed: number };
          return `${JSON.stringify({ ...record, seed: record.seed + 1 })}\n`;
        })
        .join(''),
    );

    expectInputError(
      await faultlineInProcess(['compare', reference, reseeded]),
      /^faultline compare: A and B share no runs: no scenario, fault plan, seed and trial appear in both \(A: 4 run\(s\) of 1 scenario\(s\), e\.g\. refunds\/partial-refund \/ refund-ack-lost \/ seed 7 \/ trial 0; B: /,
    );
  });

  it('a set holding two runs of one pair', async () => {
    const twice = join(root, 'twice');
    mkdirSync(twice, { recursive: true });
    const lines = readFileSync(join(reference, 'results.jsonl'), 'utf8').trimEnd().split('\n');
    const bounded = lines.map((l) =>
      l.replaceAll('|supervised|', '|bounded|').replace('"mode":"supervised"', '"mode":"bounded"'),
    );
    writeFileSync(join(twice, 'results.jsonl'), `${[...lines, ...bounded].join('\n')}\n`);

    expectInputError(
      await faultlineInProcess(['compare', twice, reference]),
      /^faultline compare: A holds two runs of refunds\/partial-refund \/ refund-ack-lost \/ seed 7 \/ trial 0 /,
    );
  });

  it('bad arguments', async () => {
    expectInputError(
      await faultlineInProcess(['compare', reference]),
      /^faultline compare: compare takes two result sets, A and B \(got 1\)/,
    );
    expectInputError(
      await faultlineInProcess(['compare', reference, mutant, '--threshold', '5%']),
      /^faultline compare: --threshold must be a fraction between 0 and 1, e\.g\. 0\.05 \(got "5%"\)$/,
    );
    expectInputError(
      await faultlineInProcess(['compare', reference, mutant, '--k', '0']),
      /--k must be a whole number ≥ 1 \(got "0"\)/,
    );
  });

  it('an --alpha outside (0, 1]', async () => {
    expectInputError(
      await faultlineInProcess(['compare', reference, mutant, '--alpha', '0']),
      /^faultline compare: --alpha must be a significance level above 0 and at most 1, e\.g\. 0\.05 \(got "0"\)$/,
    );
  });

  it('a config whose compare.maxRegression is out of range', async () => {
    const config = join(root, 'bad.config.mjs');
    writeFileSync(config, 'export default { compare: { maxRegression: 2 } };\n');

    expectInputError(
      await faultlineInProcess(['compare', reference, mutant, '--config', config]),
      /^faultline compare: Invalid config .*bad\.config\.mjs: compare\.maxRegression: /,
    );
  });
});

describe('faultline compare --help', () => {
  it('prints the usage and exits 0', async () => {
    const ran = await faultlineInProcess(['compare', '--help']);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/^Usage: faultline compare A B \[options\]/);
    expect(ran.stdout).toContain('--threshold X');
    expect(ran.stdout).toContain('--alpha A');
  });
});
