import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectInputError, faultlineInProcess, tempDir } from '../support/cli.js';

const dir = tempDir('tool-loop-cli');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('faultline run --agent tool-loop', () => {
  it('without --model: one line that says how to give it a model, nothing written', async () => {
    const out = join(dir, 'out');
    const ran = await faultlineInProcess([
      'run',
      'refunds/partial-refund',
      '--agent',
      'tool-loop',
      '--out',
      out,
    ]);
    expectInputError(ran, /tool-loop calls a model: give one with --model PROVIDER:MODEL/, 'run');
    expect(readdirSync(dir)).toEqual([]);
  });
});
