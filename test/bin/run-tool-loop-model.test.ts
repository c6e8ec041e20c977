import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../bin/cli.js';
import type { Io } from '../../bin/io.js';
import { tempDir } from '../support/cli.js';
import { useOracleProvider } from '../support/oracle-provider.js';

const dir = tempDir('tool-loop-model');
const provider = useOracleProvider('sk-oracle-cli-test');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** `faultline run` in process (msw intercepts only this process's requests). */
async function run(args: readonly string[]): Promise<{ status: number; stdout: string }> {
  let stdout = '';
  const io: Io = {
    out: (t) => (stdout += `${t}\n`),
    err: (t) => (stdout += `${t}\n`),
    progress: () => undefined,
    progressDone: () => undefined,
    color: false,
    tty: false,
  };
  const status = await main(['run', ...args], io);
  return { status, stdout };
}

describe('faultline run --agent tool-loop --model openai:gpt-test (the oracle over msw)', () => {
  it('runs full-refund fault-free: it passes, and its record carries the model', async () => {
    const out = join(dir, 'out');
    const ran = await run([
      'refunds/full-refund',
      ...['--agent', 'tool-loop', '--model', 'openai:gpt-test', '--out', out, '--faults', 'none'],
    ]);
    expect(ran.stdout).toMatch(/1 run\(s\) of 1 scenario\(s\): 1 passed/);
    expect(ran.status).toBe(0);
    const [record] = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(record).toMatchObject({
      agent: 'tool-loop',
      model: { id: 'openai:gpt-test' },
      scenarioId: 'refunds/full-refund',
      pass: true,
    });
    expect((record?.figures as { modelCalls: number }).modelCalls).toBe(provider().calls.length);
  });

  it('fails partial-refund under a lost acknowledgement, naming the duplicate and the replay command', async () => {
    const out = join(dir, 'lost-ack');
    const ran = await run([
      'refunds/partial-refund',
      ...['--agent', 'tool-loop', '--model', 'openai:gpt-test', '--out', out],
      ...['--plan', 'refund-ack-lost'],
    ]);
    expect(ran.status).toBe(1);
    expect(ran.stdout).toContain('duplicate-effect');
    expect(ran.stdout).toMatch(/--agent tool-loop --model openai:gpt-test/);
  });
});
