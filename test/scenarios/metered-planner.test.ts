import { describe, expect, it } from 'vitest';
import { gradeRun } from '../../graders/index.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { proposalUsage } from '../../scenarios/metered-planner.js';
import { runScenario } from '../../scenarios/runner.js';
import { tempDir } from '../support/cli.js';

const PRICE = {
  name: 'test-model',
  baseInputTokens: 1_000,
  inputTokensPerStep: 100,
  outputTokensPerProposal: 50,
  usdPerMillionInputTokens: 2,
  usdPerMillionOutputTokens: 10,
};

const byId = (id: string) => BUILT_IN_SCENARIOS.find((s) => s.id === id)!;

describe('proposalUsage', () => {
  it('prices the prompt, the context the finished steps add, and the answer', () => {
    expect(proposalUsage(PRICE, 0)).toEqual({
      inputTokens: 1_000,
      outputTokens: 50,
      costUsd: (1_000 * 2 + 50 * 10) / 1e6,
    });
    expect(proposalUsage(PRICE, 7)).toMatchObject({ inputTokens: 1_700, outputTokens: 50 });
  });
});

describe('a scenario with a price list', () => {
  it('reports the run’s tokens and cost (cmdb/nightly-sync)', async () => {
    const scenario = byId('cmdb/nightly-sync');
    const { trajectory } = await runScenario(scenario, { outDir: tempDir('metered') });
    const { figures } = gradeRun(scenario, trajectory).grades.operational;
    expect(trajectory.outcome.state).toBe('completed');
    expect(figures.tokens).toBeGreaterThan(100_000);
    expect(figures.costUsd).toBeGreaterThan(0.5);
  });

  it('stops before the proposal that would break the cost budget, and stays within it', async () => {
    const scenario = byId('cmdb/model-budget');
    const { trajectory } = await runScenario(scenario, { outDir: tempDir('metered') });
    const { grades, pass } = gradeRun(scenario, trajectory);
    expect(trajectory.outcome).toMatchObject({ state: 'failed', stopReason: 'budget-exhausted' });
    expect(grades.operational.figures.costUsd).toBeLessThanOrEqual(
      scenario.contract.budgets.costUsd,
    );
    expect(pass).toBe(true);
    expect(Object.values(grades).flatMap((g) => g.findings)).toEqual([]);
  });

  it('without budgets, the agent overspends and is caught (unbounded-retry)', async () => {
    const scenario = byId('cmdb/model-budget');
    const { trajectory } = await runScenario(scenario, {
      agent: () => zooAgent('unbounded-retry')!.create(),
      outDir: tempDir('metered'),
    });
    const { grades } = gradeRun(scenario, trajectory);
    expect(grades.operational.figures.costUsd).toBeGreaterThan(scenario.contract.budgets.costUsd);
    expect(grades.operational.findings.map((f) => f.code)).toContain('over-cost-budget');
  });
});
