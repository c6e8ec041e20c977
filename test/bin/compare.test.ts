import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTLINE_VERSION } from '../../bin/agent-source.js';
import type { Comparison } from '../../reports/compare.js';
import { faultline, expectInputError, tempDir } from '../support/cli.js';
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
  it('exits 1 when B regressed, printing the rates, McNemar, pass^k, regressions with replays', () => {
    const before = { a: snapshot(reference), b: snapshot(mutant) };

    const ran = faultline(['compare', reference, mutant]);

    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(1);
    const v = FAULTLINE_VERSION;
    expect(ran.stdout).toContain(
      `A: ${reference} — 4 run(s), agent reference ${v}, mode supervised`,
    );
    expect(ran.stdout).toContain(
      `B: ${mutant} — 4 run(s), agent no-reconcile ${v}, mode supervised`,
    );
    expect(ran.stdout).toContain(`the agent differs: reference ${v} → no-reconcile ${v}`);
    expect(ran.stdout).toContain('4 pair(s) by scenario, fault plan, seed and trial');
    expect(ran.stdout).toMatch(/│ dimension +│ A +│ B +│ Δ +│ A✓ B✗ +│ A✗ B✓ +│ McNemar p +│ +│/);
    expect(ran.stdout).toMatch(
      /│ overall \* +│ 100% +│ 50% +│ −50 pp +│ 2 +│ 0 +│ 0\.5 +│ regressed │/,
    );
    expect(ran.stdout).toMatch(
      /│ integrity \* +│ 100% +│ 50% +│ −50 pp +│ 2 +│ 0 +│ 0\.5 +│ regressed │/,
    );
    expect(ran.stdout).toMatch(/│ policy \* +│ 100% +│ 100% +│ 0 pp +│ 0 +│ 0 +│ 1 +│ +│/);
    expect(ran.stdout).toMatch(
      /│ pass\^2 +│ A +│ B +│ Δ +│\n│ overall +│ 100% +│ 50% +│ −50 pp +│/,
    );
    expect(ran.stdout).toContain('Regressions — passed in A, failed in B (2):');
    expect(ran.stdout).toContain(
      '  ✗ refunds/partial-refund / message-ack-lost · seed 7 · trial 0\n' +
        '      outcome: claimed-success-not-in-world · integrity: duplicate-effect · recovery: unreconciled-retry\n' +
        '      replay: npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --agent no-reconcile --mode supervised',
    );
    expect(ran.stdout).toContain('Fixes — failed in A, passed in B (0): none');
    expect(ran.stdout).toContain('Unpaired runs of A (0): none');
    expect(ran.stdout).toContain(
      'B regressed: overall −50 pp, outcome −50 pp, integrity −50 pp, recovery −50 pp (allowed drop 0 pp)',
    );
    expect(ran.stdout).not.toContain('\u001b[');
    expect({ a: snapshot(reference), b: snapshot(mutant) }).toEqual(before);
  });

  it('exits 0 when the drop is within --threshold', () => {
    const ran = faultline(['compare', reference, mutant, '--threshold', '0.5']);

    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('B did not regress: no core dimension dropped more than 50 pp');
  });

  it("takes the threshold from the config's compare.maxRegression, and --threshold over it", () => {
    const config = join(root, 'lenient.config.mjs');
    writeFileSync(config, 'export default { compare: { maxRegression: 0.5 } };\n');

    expect(faultline(['compare', reference, mutant, '--config', config]).status).toBe(0);
    expect(
      faultline(['compare', reference, mutant, '--config', config, '--threshold', '0.4']).status,
    ).toBe(1);
  });

  it('exits 0 the other way round, listing the fixes with the replay of the failing run', () => {
    const ran = faultline(['compare', mutant, reference]);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('Regressions — passed in A, failed in B (0): none');
    expect(ran.stdout).toContain('Fixes — failed in A, passed in B (2):');
    expect(ran.stdout).toContain(
      'replay: npx faultline run refunds/partial-refund --plan message-ack-lost --seed 7 --agent no-reconcile --mode supervised',
    );
  });

  it('reads results.jsonl files as well as folders, and a set against itself does not regress', () => {
    const ran = faultline(['compare', join(reference, 'results.jsonl'), reference, '--k', '1']);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/│ pass\^1 +│ A +│ B +│ Δ +│/);
  });

  it('lists unpaired runs of each side', () => {
    const fewer = variant('fewer', (lines) => `${lines.slice(1).join('\n')}\n`);

    const ran = faultline(['compare', reference, fewer]);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain('3 pair(s) by scenario, fault plan, seed and trial');
    expect(ran.stdout).toContain(
      'Unpaired runs of A (1) — not in the rates above:\n' +
        '  pass refunds/partial-refund / refund-ack-lost · seed 7 · trial 0\n' +
        '      replay: npx faultline run refunds/partial-refund --plan refund-ack-lost --seed 7 --mode supervised',
    );
    expect(ran.stdout).toContain('Unpaired runs of B (0): none');
  });

  it('prints the comparison as JSON with --json', () => {
    const ran = faultline(['compare', reference, mutant, '--json']);

    expect(ran.status).toBe(1);
    const json = JSON.parse(ran.stdout) as Comparison & { sources: { a: string; b: string } };
    expect(json.sources).toEqual({ a: reference, b: mutant });
    expect(json.a.agentVersions).toEqual([{ name: 'reference', version: FAULTLINE_VERSION }]);
    expect(json.b.agentVersions).toEqual([{ name: 'no-reconcile', version: FAULTLINE_VERSION }]);
    expect(json.agentChanged).toBe(true);
    expect(json.regressed).toBe(true);
    expect(json.pairs).toBe(4);
    expect(json.rows[0]).toMatchObject({ row: 'overall', lost: 2, gained: 0, pValue: 0.5 });
    expect(json.regressions).toHaveLength(2);
  });
});

describe('faultline compare: bad input exits 2 with one line naming what and where', () => {
  it('a results file with a corrupt line', () => {
    const dir = variant(
      'corrupt',
      (lines) => `${[lines[0], '{"format": "faultl', ...lines.slice(2)].join('\n')}\n`,
    );

    expectInputError(
      faultline(['compare', reference, dir]),
      new RegExp(
        `^faultline compare: ${dir}/results\\.jsonl:2: not JSON — the results file is corrupt$`,
      ),
    );
  });

  it('a results file cut short by a kill', () => {
    const dir = variant(
      'truncated',
      (lines) => `${lines.slice(0, 3).join('\n')}\n${lines[3]!.slice(0, 40)}`,
    );

    expectInputError(
      faultline(['compare', dir, reference]),
      new RegExp(`^faultline compare: ${dir}/results\\.jsonl:4: truncated \\(`),
    );
  });

  it('a results file of another format version', () => {
    const dir = variant(
      'version',
      (lines) =>
        `${lines.map((l, i) => (i === 2 ? l.replace('"version":1', '"version":2') : l)).join('\n')}\n`,
    );

    expectInputError(
      faultline(['compare', reference, dir]),
      new RegExp(
        `^faultline compare: ${dir}/results\\.jsonl:3: format version 2; this faultline reads version 1$`,
      ),
    );
  });

  it('a folder with no results', () => {
    const empty = join(root, 'nothing-here');

    expectInputError(
      faultline(['compare', reference, empty]),
      new RegExp(`^faultline compare: ${empty}/results\\.jsonl: no results here`),
    );
  });

  it('two sets that share no runs', () => {
    const reseeded = variant('reseeded', (lines) =>
      lines
        .map((l) => {
          const record = JSON.parse(l) as { seed: number };
          return `${JSON.stringify({ ...record, seed: record.seed + 1 })}\n`;
        })
        .join(''),
    );

    expectInputError(
      faultline(['compare', reference, reseeded]),
      /^faultline compare: A and B share no runs: no scenario, fault plan, seed and trial appear in both \(A: 4 run\(s\) of 1 scenario\(s\), e\.g\. refunds\/partial-refund \/ refund-ack-lost \/ seed 7 \/ trial 0; B: /,
    );
  });

  it('a set holding two runs of one pair', () => {
    const twice = join(root, 'twice');
    mkdirSync(twice, { recursive: true });
    const lines = readFileSync(join(reference, 'results.jsonl'), 'utf8').trimEnd().split('\n');
    const bounded = lines.map((l) =>
      l.replaceAll('|supervised|', '|bounded|').replace('"mode":"supervised"', '"mode":"bounded"'),
    );
    writeFileSync(join(twice, 'results.jsonl'), `${[...lines, ...bounded].join('\n')}\n`);

    expectInputError(
      faultline(['compare', twice, reference]),
      /^faultline compare: A holds two runs of refunds\/partial-refund \/ refund-ack-lost \/ seed 7 \/ trial 0 /,
    );
  });

  it('bad arguments', () => {
    expectInputError(
      faultline(['compare', reference]),
      /^faultline compare: compare takes two result sets, A and B \(got 1\)/,
    );
    expectInputError(
      faultline(['compare', reference, mutant, '--threshold', '5%']),
      /^faultline compare: --threshold must be a fraction between 0 and 1, e\.g\. 0\.05 \(got "5%"\)$/,
    );
    expectInputError(
      faultline(['compare', reference, mutant, '--k', '0']),
      /--k must be a whole number ≥ 1 \(got "0"\)/,
    );
  });

  it('a config whose compare.maxRegression is out of range', () => {
    const config = join(root, 'bad.config.mjs');
    writeFileSync(config, 'export default { compare: { maxRegression: 2 } };\n');

    expectInputError(
      faultline(['compare', reference, mutant, '--config', config]),
      /^faultline compare: Invalid config .*bad\.config\.mjs: compare\.maxRegression: /,
    );
  });
});

describe('faultline compare --help', () => {
  it('prints the usage and exits 0', () => {
    const ran = faultline(['compare', '--help']);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/^Usage: faultline compare A B \[options\]/);
    expect(ran.stdout).toContain('--threshold X');
  });
});
