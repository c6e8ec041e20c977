import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../runtime/errors.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial } from '../../scenarios/engine.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { loadRegressionFile, loadRegressions } from '../../scenarios/regression.js';

const regression = {
  format: 'faultline-regression',
  version: 1,
  scenario: 'refunds/partial-refund',
  seed: 4242,
  faultPlan: {
    id: 'found-by-exploration',
    faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } }],
  },
};

function folder(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-regressions-'));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

describe('regression files', () => {
  it('name a scenario by id and add a seed and a fault plan, which the engine runs', async () => {
    const dir = folder({
      'b.json': regression,
      'a.json': { ...regression, seed: 1 },
      'notes.txt': 'ignored',
    });
    const cases = await loadRegressions(dir, BUILT_IN_SCENARIOS);

    expect(cases.map((c) => [c.file.endsWith('a.json'), c.seed])).toEqual([
      [true, 1],
      [false, 4242],
    ]);
    const { trajectory, asExpected } = await runTrial({
      scenario: cases[1]!.scenario,
      faultPlan: cases[1]!.faultPlan,
      seed: cases[1]!.seed,
      agent: () => new ReferenceAgent(),
      outDir: dir,
    });
    expect(trajectory.seed).toBe(4242);
    expect(trajectory.faults.fired.map((f) => f.kind)).toEqual(['lost-ack']);
    expect(asExpected).toBe(true);
  });

  it('a missing folder holds no regressions', async () => {
    expect(
      await loadRegressions(join(tmpdir(), 'faultline-no-such-folder'), BUILT_IN_SCENARIOS),
    ).toEqual([]);
  });

  it.each([
    [
      'an unknown scenario',
      { ...regression, scenario: 'refunds/nope' },
      /scenario: no scenario "refunds\/nope"/,
    ],
    [
      'an unknown fault kind',
      {
        ...regression,
        faultPlan: { id: 'x', faults: [{ kind: 'meteor', trigger: { on: 'step', step: 1 } }] },
      },
      /faultPlan\.faults\[0\]\.kind/,
    ],
    ['another format version', { ...regression, version: 2 }, /version/],
    ['truncated JSON', '{"format": "faultline-regression", "ver', /regression file .*bad\.json/],
  ])('refuses %s, naming the file and the field', async (_what, content, message) => {
    const dir = folder({ 'bad.json': content });
    const error = await loadRegressionFile(join(dir, 'bad.json'), BUILT_IN_SCENARIOS).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain(join(dir, 'bad.json'));
    expect((error as Error).message).toMatch(message);
  });
});
