import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAULTLINE_BIN, faultlineInProcess, tempDir } from '../support/cli.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The JSON lines of a result set. */
function results(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('shadowing a live stdio server', () => {
  it('runs an agent against a child `faultline serve --stdio`: its reads reach the server, its writes never do', async () => {
    const out = tempDir('live-e2e-out');
    const served = tempDir('live-e2e-served');
    dirs.push(out, served);
    const server = `${process.execPath} ${FAULTLINE_BIN} serve refunds/partial-refund --stdio --out ${served}`;
    const ran = await faultlineInProcess([
      'run',
      'refunds/partial-refund',
      '--mode',
      'shadow',
      '--server',
      server,
      '--agent',
      'test/fixtures/agents/proposer.ts',
      '--out',
      out,
    ]);
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(results(out)[0]).toMatchObject({ mode: 'shadow', pass: true, state: 'completed' });
    // The live server's own account of its session: one read, no write, no effect.
    const [session] = results(served);
    const trajectory = JSON.parse(
      readFileSync(join(served, String(session?.['trajectoryFile'])), 'utf8'),
    ) as { calls: { tool: string }[]; ledger: unknown[] };
    expect(trajectory.calls.map((c) => c.tool)).toEqual(['get_order']);
    expect(trajectory.ledger).toEqual([]);
  }, 60_000);
});
