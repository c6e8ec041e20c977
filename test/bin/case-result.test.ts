import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseResult, suiteSelection, type SuiteCase } from '../../bin/suite.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runScenario, type ScenarioRunResult } from '../../scenarios/runner.js';
import { runResultSchema } from '../../reports/results.js';
import { tmpOut } from '../support/trial-harness.js';

/** The versions a run record carries for `compare`: contract, policy gate and model cassettes. */
describe('caseResult: the versions a record carries', () => {
  const out = tmpOut();
  let c: SuiteCase;
  let run: ScenarioRunResult;
  beforeAll(async () => {
    const { cases } = await suiteSelection({
      globs: ['refunds/partial-refund'],
      agent: 'reference',
      faults: 'none',
      plan: 'none',
      trials: 1,
      scenarioFiles: [],
      regressions: 'none',
    });
    const first = cases[0];
    if (!first) throw new Error('no case');
    c = first;
    run = await runScenario(c.scenario, {
      outDir: out,
      agent: () => new ReferenceAgent(),
      faultPlan: c.faultPlan,
      seed: c.seed,
      trial: c.trial,
    });
  }, 30_000);
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it("records the scenario's contract version and the policy version the reference runtime stored", () => {
    const { result } = caseResult(c, { name: 'reference', version: '1' }, run);

    expect(result.contractVersion).toBe(c.scenario.contract.version);
    expect(result.policyVersion).toBe('policy-gate@1');
    expect(result.modelCassettes).toBeUndefined();
    expect(runResultSchema.parse(JSON.parse(JSON.stringify(result)))).toEqual(result);
  });

  it('records no policy version for an agent whose records report none (a black-box agent)', () => {
    const blackBox = { ...run, trajectory: { ...run.trajectory, agentRecords: null } };

    expect(caseResult(c, { name: 'mine', version: '1' }, blackBox).result.policyVersion).toBeNull();
  });

  it('records where the model replies are on cassette: replayed from, else recorded to', () => {
    const agent = { name: 'reference', version: '1' };

    expect(caseResult(c, agent, run, { replayDir: 'cassettes/a' }).result.modelCassettes).toEqual({
      dir: 'cassettes/a',
      mode: 'replay',
    });
    expect(caseResult(c, agent, run, { recordDir: 'cassettes/b' }).result.modelCassettes).toEqual({
      dir: 'cassettes/b',
      mode: 'record',
    });
  });
});
