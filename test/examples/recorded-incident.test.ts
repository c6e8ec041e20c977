import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { faultlineInProcess, tempDir } from '../support/cli.js';

const SCENARIOS = 'examples/incidents/refund-regression.json';
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `faultline run --scenarios examples/incidents/… incidents/goodwill-refund --agent AGENT`, in process. */
async function run(agent: string) {
  const out = tempDir('recorded-incident');
  dirs.push(out);
  return faultlineInProcess([
    'run',
    '--scenarios',
    SCENARIOS,
    'incidents/goodwill-refund',
    '--agent',
    agent,
    '--out',
    out,
  ]);
}

describe('examples/incidents: a recorded session as a scenario fixture, faults on top', () => {
  it('is passed by the reference, fault-free and under every plan', async () => {
    const ran = await run('reference');
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toContain('5 run(s) of 1 scenario(s): 5 passed, 0 failed');
    expect(ran.status).toBe(0);
  });

  it('fails the agent that resends a message whose acknowledgement was lost: a duplicate in the world', async () => {
    const ran = await run('no-reconcile');
    expect(ran.stdout).toMatch(
      /incidents\/goodwill-refund \/ message-ack-lost .*no-reconcile[\s\S]*integrity · duplicate-effect: send_customer_message/,
    );
    expect(ran.status).toBe(1);
  });

  it('fails the agent without stable idempotency keys when the recorded refund fails once', async () => {
    const ran = await run('no-idempotency');
    expect(ran.stdout).toMatch(
      /incidents\/goodwill-refund \/ refund-flaky .*no-idempotency[\s\S]*recovery · retry-changed-key: issue_refund/,
    );
    expect(ran.stdout).toContain('5 run(s) of 1 scenario(s): 4 passed, 1 failed');
  });
});
