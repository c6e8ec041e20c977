import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette, readModelCassette } from '../../recordings/index.js';
import { FAULTLINE_BIN, faultlineInProcess, tempDir } from '../support/cli.js';
import { readResults } from '../../reports/results.js';
import { useOracleProvider } from '../support/oracle-provider.js';

const KEY = 'sk-oracle-record-test-4411';
const dir = tempDir('record-model');
const provider = useOracleProvider(KEY);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A live refunds server in a child process (msw, in this one, would intercept HTTP). */
const server = (served: string): string[] => [
  '--server',
  `node '${FAULTLINE_BIN}' serve refunds/partial-refund --stdio --time-scale 0.01 --out '${served}'`,
];

describe('faultline record --agent tool-loop --model … (the oracle over msw)', () => {
  it(
    'records the tool calls and, in models/, the model calls; the cassette points at them; no key',
    { timeout: 60_000 },
    async () => {
      const out = join(dir, 'recordings');
      const served = join(dir, 'served');
      const ran = await faultlineInProcess([
        'record',
        'refunds/partial-refund',
        ...['--agent', 'tool-loop', '--model', 'openai:gpt-test'],
        ...server(served),
        ...['--time-scale', '0.01', '--out', out],
      ]);

      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stderr).toMatch(/recorded refunds\/partial-refund · tool-loop \S+ → completed/);
      const file = 'refunds__partial-refund.none.0.json';
      expect(readdirSync(out).sort()).toEqual(['index.json', 'models', file]);
      const cassette = await loadCassette(join(out, file));
      expect(cassette.session?.modelCassette).toBe('models/refunds__partial-refund.none.0.json');
      const model = readModelCassette(join(out, 'models', 'refunds__partial-refund.none.0.json'));
      expect(model.runId).toBe('refunds/partial-refund#none#0');
      expect(model.calls.length).toBe(provider().calls.length);
      // What the live server received is what the cassette holds: the live run passed.
      const tools = cassette.interactions.filter((i) => i.kind === 'tool');
      expect(tools.map((i) => i.tool)).toContain('issue_refund');
      const { results } = readResults(served);
      expect(results).toEqual([expect.objectContaining({ agent: 'tool-loop', pass: true })]);
      expect(results[0]?.figures.calls).toBe(tools.length);
      for (const text of [
        readFileSync(join(out, file), 'utf8'),
        readFileSync(join(out, 'models', 'refunds__partial-refund.none.0.json'), 'utf8'),
      ]) {
        expect(text).not.toContain(KEY);
      }
    },
  );

  it('refuses model options for an agent that calls no model, before anything is written', async () => {
    const out = join(dir, 'refused');
    const ran = await faultlineInProcess([
      'record',
      'refunds/partial-refund',
      ...['--agent', 'reference', '--model', 'openai:gpt-test'],
      ...server(join(dir, 'never')),
      ...['--out', out],
    ]);
    expect(ran.status).toBe(2);
    expect(ran.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^faultline record: --model: agent reference does not call a model/),
    ]);
    expect(() => readdirSync(out)).toThrow();
  });
});
