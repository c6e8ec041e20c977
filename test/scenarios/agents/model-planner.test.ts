import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModelSetup } from '../../../models/model-setup.js';
import { defaultPlannerPrompt } from '../../../models/model-planner.js';
import { promptHash } from '../../../models/prompt-file.js';
import { parseViewMessage } from '../../../models/planner-view.js';
import { RunStore } from '../../../runtime/store.js';
import { gradeRun, CORE_DIMENSIONS } from '../../../graders/index.js';
import type { Safeguards } from '../../../runtime/safeguards.js';
import { modelPlannerFor } from '../../../scenarios/agents/model-planner.js';
import { ReferenceAgent } from '../../../scenarios/agents/reference.js';
import { zooAgent } from '../../../scenarios/agents/zoo.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import { runScenario } from '../../../scenarios/runner.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { NO_FAULTS } from '../../../faults/catalog.js';
import { plannerOracle } from '../../support/planner-oracle.js';
import {
  OPENAI_BASE_URL,
  startProviderServer,
  type ProviderServer,
  type Respond,
} from '../../support/provider-server.js';
import { tmpOut } from '../../support/trial-harness.js';

const SETUP: ModelSetup = {
  spec: 'openai:gpt-4o-mini',
  provider: 'openai',
  api: 'openai',
  modelId: 'gpt-4o-mini',
  baseURL: OPENAI_BASE_URL,
  apiKeyEnv: 'FAULTLINE_TEST_OPENAI_KEY',
  prices: { inputPerMillion: 150, outputPerMillion: 600 },
};

let respond: Respond = () => ({ status: 599 });
let provider: ProviderServer;
beforeAll(() => {
  vi.stubEnv('FAULTLINE_TEST_OPENAI_KEY', 'sk-test');
  provider = startProviderServer((request) => respond(request));
});
afterAll(() => {
  provider.close();
  vi.unstubAllEnvs();
});

async function run(agent: string, scenario: Scenario, planId: string | null) {
  respond = plannerOracle(scenario.blueprint);
  const plan = planId === null ? NO_FAULTS : scenario.faultPlans.find((p) => p.id === planId);
  if (!plan) throw new Error(`no fault plan ${String(planId)}`);
  const entry = zooAgent(agent);
  if (!entry) throw new Error(`no zoo agent ${agent}`);
  const result = await runScenario(scenario, {
    outDir: tmpOut(),
    agent: () => entry.create(),
    faultPlan: plan,
    model: SETUP,
  });
  const grades = gradeRun(scenario, result.trajectory);
  const codes = CORE_DIMENSIONS.flatMap((d) => grades.grades[d].findings.map((f) => f.code));
  return { result, grades, codes, trajectory: result.trajectory };
}

const PLANS = [
  null,
  'refund-ack-lost',
  'crash-after-apply',
  'crash-after-refund',
  'message-ack-lost',
];

describe.each(['model-planner', 'model-planner-objective'])(
  '%s, driven by the oracle over the OpenAI API: the runtime, not the model, prevents the flaws',
  (agent) => {
    it.each(PLANS)(
      'partial-refund under %s: passes, no duplicate effect, no redone write',
      async (planId) => {
        const { grades, codes, trajectory } = await run(agent, partialRefund, planId);
        expect(codes).not.toContain('duplicate-effect');
        expect(codes).not.toContain('confirmed-step-redone');
        expect(grades.pass, codes.join(', ')).toBe(true);
        // Every call was made by the model planner through run.model, and metered.
        expect(trajectory.modelCalls!.length).toBeGreaterThan(0);
        expect(trajectory.modelCalls!.every((c) => c.error === null)).toBe(true);
        // Objective-only: the model wrote the plan, once, and the runtime stored it.
        const events = (trajectory.agentRecords as { events: { type: string }[] }).events;
        const written = events.filter((e) => e.type === 'plan.written').length;
        expect(written).toBe(agent === 'model-planner-objective' ? 1 : 0);
      },
    );
  },
);

describe('the same oracle answers without the runtime safeguards: the flaws come back', () => {
  async function unsafe(safeguards: Partial<Safeguards>, planId: string) {
    respond = plannerOracle(partialRefund.blueprint);
    const plan = partialRefund.faultPlans.find((p) => p.id === planId);
    const result = await runScenario(partialRefund, {
      outDir: tmpOut(),
      agent: () =>
        new ReferenceAgent('model-planner-unsafe', safeguards, { planner: modelPlannerFor }),
      ...(plan ? { faultPlan: plan } : {}),
      model: SETUP,
    });
    const grades = gradeRun(partialRefund, result.trajectory);
    return CORE_DIMENSIONS.flatMap((d) => grades.grades[d].findings.map((f) => f.code));
  }

  it('a lost acknowledgement without idempotency keys or reconciliation: a duplicate refund', async () => {
    expect(await unsafe({ idempotency: false, reconcile: false }, 'refund-ack-lost')).toContain(
      'duplicate-effect',
    );
  });

  it('a crash after the confirmed refund without checkpoints: the refund redone', async () => {
    expect(await unsafe({ checkpoint: false }, 'crash-after-refund')).toContain(
      'confirmed-step-redone',
    );
  });
});

describe('model-planner: what it sends and reports', () => {
  it('sends one bounded working context per call, never a transcript, and records its versions', async () => {
    const { trajectory, result } = await run('model-planner', partialRefund, 'crash-after-refund');
    const requests = provider.calls.slice(-trajectory.modelCalls!.length).map((c) => c.request);
    for (const request of requests) {
      expect(request.messages).toHaveLength(1);
      const view = parseViewMessage(request.messages[0]?.text ?? '');
      expect(view?.planning).toBe('blueprint');
      // Only the results the next operations read: never the whole run's history.
      expect(Object.keys(view?.results ?? {}).every((id) => ['order'].includes(id))).toBe(true);
    }
    expect(requests[0]?.system).toContain('You are the planner of a durable agent runtime');
    const store = RunStore.open(result.storePath);
    const versions = store.getRun(result.runId)?.versions;
    store.close();
    expect(versions?.model).toBe('gpt-4o-mini');
    expect(versions?.prompt).toBe(promptHash(defaultPlannerPrompt()));
    expect(versions?.prompt).toMatch(/^sha256:[0-9a-f]{12}$/);
  });

  it('reports usage and cost to the runtime, which charges them to the run', async () => {
    const { trajectory } = await run('model-planner', partialRefund, null);
    const metered = trajectory.modelCalls!.reduce((sum, c) => sum + c.costUsd, 0);
    expect(metered).toBeGreaterThan(0);
    const records = trajectory.agentRecords as { events: { type: string; data: unknown }[] };
    const charged = records.events
      .filter((e) => e.type === 'planner.usage')
      .reduce((sum, e) => sum + (e.data as { costUsd: number }).costUsd, 0);
    expect(charged).toBeCloseTo(metered, 10);
  });

  it('regenerates a malformed reply as invalid_output, then stops after the limit', async () => {
    respond = plannerOracle(partialRefund.blueprint, { garble: 1 });
    const entry = zooAgent('model-planner');
    const once = await runScenario(partialRefund, {
      outDir: tmpOut(),
      agent: () => entry!.create(),
      model: SETUP,
    });
    const events = (once.trajectory.agentRecords as { events: { type: string }[] }).events;
    expect(events.filter((e) => e.type === 'planner.invalid-output')).toHaveLength(1);
    expect(once.state).toBe('completed');

    respond = plannerOracle(partialRefund.blueprint, { garble: 1_000 });
    const always = await runScenario(partialRefund, {
      outDir: tmpOut(),
      agent: () => entry!.create(),
      model: SETUP,
    });
    expect(always.state).toBe('failed');
    expect(always.stopReason).toBe('invalid-output');
    const first = (
      always.trajectory.agentRecords as { events: { type: string; reason: string | null }[] }
    ).events.find((e) => e.type === 'planner.invalid-output');
    expect(first?.reason).toBe(
      'invalid structured output: (root): Invalid input: expected object, received string',
    );
    expect(always.trajectory.ledger).toHaveLength(0);
    const regenerated = (
      always.trajectory.agentRecords as { events: { type: string }[] }
    ).events.filter((e) => e.type === 'planner.invalid-output').length;
    expect(regenerated).toBeGreaterThan(0);
    expect(always.trajectory.modelCalls!).toHaveLength(regenerated + 1);
  });
});
