import { BUILT_IN_SCENARIOS, defineScenario, runTrial, zooAgent } from 'faultline';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import myAgent from './my-agent.js';

// A child process boots Node for each incarnation: seconds on a busy machine.
const TRIAL_TIMEOUT_MS = 60_000;
const outDir = join(process.cwd(), '.faultline', 'trials');
const scenarioById = (id: string) => {
  const scenario = BUILT_IN_SCENARIOS.find((s) => s.id === id);
  if (!scenario) throw new Error(`no scenario ${id}`);
  return scenario;
};

it(
  'my agent changes the phone and notes it, as the scenario expects',
  async () => {
    const scenario = scenarioById('crm/update-contact');
    const result = await runTrial({ scenario, agent: myAgent, outDir });
    expect(result.mismatches).toEqual([]);
    expect(result.asExpected).toBe(true);
    expect(result.trajectory.ledger.map((e) => e.tool)).toEqual(['update_account', 'add_note']);
  },
  TRIAL_TIMEOUT_MS,
);

it(
  'the reference resumes in a new child process after a real crash',
  async () => {
    const scenario = defineScenario({
      ...scenarioById('refunds/partial-refund'),
      faultPlans: [
        {
          id: 'child-crash',
          faults: [
            {
              kind: 'crash',
              trigger: { on: 'probe', probe: 'after-apply', operation: 'refund' },
              mode: 'child',
            },
          ],
        },
      ],
    });
    const reference = zooAgent('reference');
    if (!reference) throw new Error('no reference agent');
    const result = await runTrial({
      scenario,
      agent: () => reference.create(),
      faultPlan: scenario.faultPlans[0],
      outDir,
    });
    expect(result.mismatches).toEqual([]);
    expect(result.trajectory.crashes).toHaveLength(1);
  },
  TRIAL_TIMEOUT_MS,
);
