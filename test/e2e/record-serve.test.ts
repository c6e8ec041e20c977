import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette, type RecordingIndex, type ToolInteraction } from '../../recordings/index.js';
import { readResults } from '../../reports/results.js';
import { FAULTLINE_BIN, faultlineInProcess, tempDir } from '../support/cli.js';

describe('faultline record: the reference against a live faultline serve that loses an acknowledgement', () => {
  it(
    'records the lost refund as unanswered, lists the session in the index, and writes no secret',
    { timeout: 120_000 },
    async () => {
      const dir = tempDir('record-e2e');
      const out = join(dir, 'recordings');
      const served = join(dir, 'served');
      // The live server is a real child process: faultline serve, applying the refund and
      // dropping its reply (plan refund-ack-lost), on the same time scale as the agent's clock.
      const ran = await faultlineInProcess([
        'record',
        'refunds/partial-refund',
        '--agent',
        'reference',
        '--server',
        `node '${FAULTLINE_BIN}' serve refunds/partial-refund --stdio --plan refund-ack-lost --time-scale 0.01 --out '${served}'`,
        '--time-scale',
        '0.01',
        '--live-plan',
        'refund-ack-lost',
        '--verdict',
        'pass',
        '--out',
        out,
      ]);

      expect(ran.status, ran.stderr).toBe(0);
      const file = 'refunds__partial-refund.refund-ack-lost.0.json';
      expect(ran.stderr).toMatch(
        /^\[1\/1\] recorded refunds\/partial-refund · reference \S+ → completed$/m,
      );
      expect(ran.stdout).toMatch(
        new RegExp(
          `${file}: \\d+ tool call\\(s\\), 1 unanswered · index .*index\\.json \\(1 session\\(s\\)\\)`,
        ),
      );

      const cassette = await loadCassette(join(out, file));
      const tools = cassette.interactions.filter((i): i is ToolInteraction => i.kind === 'tool');
      const lost = tools.filter((i) => i.unanswered !== undefined);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toMatchObject({ tool: 'issue_refund', arguments: { order_id: 'ord_4' } });
      // The agent gave up after its own timeout, on its clock (virtual ms at time-scale 0.01).
      expect(lost[0]?.unanswered?.waitedMs).toBeGreaterThanOrEqual(1_000);
      // It then sent the refund again with the same key, and that reply came.
      const next = tools[tools.indexOf(lost[0]!) + 1];
      expect(next?.tool).toBe('issue_refund');
      expect(next?.result?.isError).not.toBe(true);
      expect(next?.meta?.['faultline/idempotency-key']).toBe(
        lost[0]?.meta?.['faultline/idempotency-key'],
      );
      expect(cassette.session).toMatchObject({
        runId: 'refunds/partial-refund#refund-ack-lost#0',
        scenario: { id: 'refunds/partial-refund' },
        faultPlanId: 'refund-ack-lost',
        agent: { name: 'reference' },
        outcome: { state: 'completed' },
        verdict: 'pass',
      });

      const index = JSON.parse(readFileSync(join(out, 'index.json'), 'utf8')) as RecordingIndex;
      expect(index.sessions).toEqual([
        expect.objectContaining({
          file,
          runId: 'refunds/partial-refund#refund-ack-lost#0',
          scenarioId: 'refunds/partial-refund',
          faultPlanId: 'refund-ack-lost',
          agent: 'reference',
          toolCalls: tools.length,
          unanswered: 1,
          verdict: 'pass',
        }),
      ]);
      expect(readdirSync(out).sort()).toEqual(['index.json', file]);

      // No secret: the run's credential (cred_<run id>_<n>) never left faultline, and every
      // credential- or token-named value that reached the file is redacted.
      const text = readFileSync(join(out, file), 'utf8');
      expect(text).not.toMatch(/cred_/);
      const secretValues = [...text.matchAll(/"[\w/-]*(?:credential|token)": "([^"]*)"/gi)].map(
        (m) => m[1],
      );
      expect(secretValues.every((v) => v === '[REDACTED]')).toBe(true);

      // The live side saw the lost acknowledgement and the agent's recovery: one refund, passed.
      const { results } = readResults(served);
      expect(results).toEqual([
        expect.objectContaining({ faultPlanId: 'refund-ack-lost', pass: true }),
      ]);
      expect(results[0]?.faultsFired).toEqual(['lost-ack']);
    },
  );
});
