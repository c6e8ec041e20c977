import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faultPlanSchema } from '../../../faults/catalog.js';
import { ReferenceAgent } from '../../../scenarios/agents/reference.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import { runScenario } from '../../../scenarios/runner.js';
import { deterministicPart } from '../../../scenarios/trajectory.js';

const dir = mkdtempSync(join(tmpdir(), 'faultline-reference-agent-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ReferenceAgent stores', () => {
  it('makes the same run with its store in memory as on disk, crashes and all, writing no file', async () => {
    const plan = faultPlanSchema.parse({
      id: 'two-crashes',
      faults: [
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-intent', operation: 'refund' } },
        { kind: 'lost-ack', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } },
        {
          kind: 'crash',
          trigger: { on: 'probe', probe: 'after-result-saved', operation: 'refund' },
        },
      ],
    });
    const run = (store: 'file' | 'memory', outDir: string) =>
      runScenario(partialRefund, {
        outDir,
        agent: () => new ReferenceAgent('reference', {}, { store }),
        faultPlan: plan,
      });

    const onDisk = await run('file', join(dir, 'file'));
    const inMemory = await run('memory', join(dir, 'memory'));

    expect(onDisk.trajectory.crashes).toHaveLength(2);
    expect(onDisk.asExpected).toBe(true);
    expect(deterministicPart(inMemory.trajectory)).toEqual(deterministicPart(onDisk.trajectory));
    expect(existsSync(onDisk.storePath)).toBe(true);
    expect(existsSync(inMemory.storePath)).toBe(false);
  });
});
