/**
 * Virtual time: a run whose approval waits 72 hours (and whose backoff and rate-limit waits add
 * more) completes in a fraction of a second of wall time, because the engine's clock jumps
 * whenever every party is waiting on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultPlanSchema } from '../faults/catalog.js';
import { ReferenceAgent } from '../scenarios/agents/reference.js';
import { runTrial } from '../scenarios/engine.js';
import { fullRefund } from '../scenarios/library/refunds/full-refund.js';
import { defineScenario } from '../scenarios/scenario.js';
import { formatDuration } from '../reports/duration.js';
import { median } from './stats.js';

const HOUR = 3_600_000;

export async function benchVirtualTime(): Promise<{ virtualMs: number; wallMs: number }> {
  const scenario = defineScenario({
    ...fullRefund,
    id: 'bench/seventy-two-hours',
    contract: {
      ...fullRefund.contract,
      autonomy: 'supervised',
      budgets: { ...fullRefund.contract.budgets, virtualTimeMs: 100 * HOUR },
    },
  });
  const plan = faultPlanSchema.parse({
    id: 'slow-everything',
    faults: [
      { kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 72 * HOUR },
      {
        kind: 'rate-limit',
        trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
        retryAfterMs: HOUR,
      },
      { kind: 'transient', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-'));
  try {
    const walls: number[] = [];
    let virtualMs = 0;
    for (let round = 0; round < 7; round++) {
      const started = performance.now();
      const { trajectory, asExpected } = await runTrial({
        scenario,
        agent: () => new ReferenceAgent(),
        faultPlan: plan,
        outDir: dir,
        trial: round,
      });
      walls.push(performance.now() - started);
      virtualMs = trajectory.times.virtualMs;
      if (!asExpected || trajectory.faults.fired.length !== 3)
        throw new Error(`benchmark run went wrong: ${JSON.stringify(trajectory.outcome)}`);
    }
    const wallMs = median(walls);
    console.log('virtual time (median of 7 runs)');
    console.log(
      `  a run spanning ${formatDuration(virtualMs)} of virtual time takes ${wallMs.toFixed(1)} ms of wall time`,
    );
    console.log(`  speed-up: ${Math.round(virtualMs / wallMs).toLocaleString('en')}×`);
    return { virtualMs, wallMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
