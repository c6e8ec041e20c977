import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults } from '../../reports/results.js';
import { faultlineInProcess, tempDir } from '../support/cli.js';

function config(text: string): { file: string; out: string } {
  const dir = tempDir('config');
  const file = join(dir, 'faultline.config.mjs');
  writeFileSync(file, text);
  return { file, out: join(dir, 'out') };
}

describe('faultline.config', () => {
  it('sets run defaults, and command-line options override them', async () => {
    const { file, out } = config(
      `export default { run: { trials: 2, reporters: ['json'], faults: 'none' } };`,
    );
    const ran = await faultlineInProcess([
      'run',
      'refunds/full-refund',
      '--config',
      file,
      '--out',
      out,
    ]);
    expect(ran.status, ran.stderr).toBe(0);
    expect(readResults(out).results.map((r) => [r.faultPlanId, r.trial])).toEqual([
      ['none', 0],
      ['none', 1],
    ]);
    expect(existsSync(join(out, 'report.json'))).toBe(true);

    const overridden = await faultlineInProcess([
      'run',
      'refunds/full-refund',
      '--config',
      file,
      '--trials',
      '1',
      '--out',
      out,
    ]);
    expect(overridden.status, overridden.stderr).toBe(0);
    expect(readResults(out).results).toHaveLength(1);
  });

  it('refuses a config with a mistake in one line naming the file and the field', async () => {
    const { file, out } = config(
      `export default { run: { trials: 'three' }, gates: { sideways: {} } };`,
    );
    const ran = await faultlineInProcess(['run', '--config', file, '--out', out]);
    expect(ran.status).toBe(2);
    const lines = ran.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`config ${file}`);
    expect(lines[0]).toContain('run.trials');
    expect(lines[0]).toContain('gates: Unrecognized key: "sideways"');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a config file that does not exist', async () => {
    const ran = await faultlineInProcess(['run', '--config', 'no-such.config.mjs']);
    expect(ran.status).toBe(2);
    expect(ran.stderr.trim()).toBe(
      'faultline run: Invalid config no-such.config.mjs: (file): no such file',
    );
  });
});
