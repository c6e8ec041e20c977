import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../graders/index.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { runScenario } from '../../scenarios/runner.js';
import { tempDir } from '../support/cli.js';

const scenario = BUILT_IN_SCENARIOS.find((s) => s.id === 'refunds/full-refund')!;
const plan = scenario.faultPlans.find((p) => p.id === 'refund-delivered-twice')!;

describe('a request the network delivers twice', () => {
  it('is marked as an echo of the call the agent made, and not held against the agent', async () => {
    const { trajectory } = await runScenario(scenario, {
      agent: () => zooAgent('reference')!.create(),
      faultPlan: plan,
      outDir: tempDir('echo'),
    });

    const echoes = trajectory.calls.filter((c) => c.echoOf !== undefined);
    expect(echoes).toHaveLength(1);
    const original = trajectory.calls.find((c) => c.callId === echoes[0]!.echoOf)!;
    expect(original.tool).toBe('issue_refund');
    expect(echoes[0]).toMatchObject({ tool: 'issue_refund', args: original.args });
    // The key made the provider apply it once.
    expect(trajectory.ledger.filter((e) => e.tool === 'issue_refund')).toHaveLength(1);

    const { grades, pass } = gradeRun(scenario, trajectory);
    expect(pass).toBe(true);
    expect(Object.values(grades).flatMap((g) => g.findings)).toEqual([]);
  });
});
