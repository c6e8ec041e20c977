import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullRefund } from '../../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import { tmpOut } from '../../support/trial-harness.js';
import { findingCodes, OracleServer, runWithOracle } from '../../support/oracle-runs.js';

const out = tmpOut();
const oracle = new OracleServer();
beforeAll(() => {
  oracle.start();
});
afterAll(() => {
  oracle.stop();
  rmSync(out, { recursive: true, force: true });
});

describe('tool-loop, driven by the oracle over the OpenAI API', () => {
  it('passes the fault-free partial refund: reads, refunds, tells the customer', async () => {
    const run = await runWithOracle(oracle, {
      agent: 'tool-loop',
      scenario: partialRefund,
      outDir: out,
    });
    expect(run.trajectory.calls.map((c) => c.tool)).toEqual([
      'get_order',
      'issue_refund',
      'send_customer_message',
    ]);
    expect(run.result.state).toBe('completed');
    expect(findingCodes(run)).toEqual([]);
    expect(run.result.pass).toBe(true);
    expect(run.requests).toHaveLength(4);
  });
});
