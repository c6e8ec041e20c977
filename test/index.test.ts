import { describe, expect, expectTypeOf, it } from 'vitest';
import * as config from '../config.js';
import type {
  AgentExport,
  FaultlineConfig,
  FaultlineConfigInput,
  GateCriteria,
} from '../config.js';
import * as faultline from '../index.js';
import type {
  ActionRecord,
  AgentFactory,
  AgentOutcome,
  AgentRecords,
  AgentReport,
  AgentResult,
  AgentRun,
  AgentUnderTest,
  CheckpointRecord,
  EventRecord,
  EvidenceRecord,
  ExpectedOutcome,
  Fault,
  FaultInput,
  FaultKind,
  FaultPlan,
  FaultPlanInput,
  FiredFault,
  Predicate,
  RunCredential,
  RunRecord,
  Trajectory,
  TrialOptions,
  TrialResult,
  Trigger,
  ValueExpr,
  WireCallRecord,
  ZooEntry,
} from '../index.js';
import * as recordings from '../recordings/index.js';
import type { Cassette, Interaction, ReplayOptions } from '../recordings/index.js';

/*
 * The public entries, name by name: a value missing from an entry fails here at run time, a
 * type missing fails the type check (`npm test` runs it beside the tests).
 */

describe('faultline (index.ts)', () => {
  it('exports what a user needs to write, run and judge an agent', () => {
    const values = [
      'agentOutcome',
      'loadAgentModule',
      'EXPECTED_EXPORT',
      'evaluate',
      'resolveValue',
      'describePredicate',
      'predicateSchema',
      'faultPlanSchema',
      'faultSchema',
      'triggerSchema',
      'FAULT_KINDS',
      'NO_FAULTS',
      'runTrial',
      'runScenario',
      'ZOO',
      'MUTANTS',
      'zooAgent',
      'ReferenceAgent',
      'modelPlannerAgent',
      'ModelPlanner',
      'NaiveChatLoopAgent',
      'BUILT_IN_SCENARIOS',
      'defineScenario',
      'VirtualClock',
      'openLiveWorld',
      'LiveWorld',
      'LiveWorldError',
      'heldResult',
      'gradeRun',
      'PlannerCallError',
      'classifyModelError',
      'toPlannerCallError',
      'RecordedWorld',
      'RECORDED_WORLD',
      'REPLAY_MATCHES',
      'followedToTheEnd',
    ] as const;
    for (const name of values) expect(faultline[name], name).toBeDefined();
  });

  it('types an agent, its answers and its records', () => {
    const agent: AgentUnderTest = {
      name: 'typed',
      version: '1',
      start: (run: AgentRun) => Promise.resolve({ status: 'completed', detail: run.objective }),
    };
    const factory: AgentFactory = () => agent;
    const report: AgentReport = { status: 'stopped', reason: 'budget' };
    const outcome: AgentOutcome = faultline.agentOutcome(report);
    const result: AgentResult = outcome;

    expect(outcome).toEqual({ state: 'stopped', stopReason: 'budget', detail: null });
    expect(factory()).toBe(agent);
    expect(result).toBe(outcome);
    expectTypeOf<AgentRecords['events']>().toEqualTypeOf<EventRecord[]>();
    expectTypeOf<AgentRecords['actions']>().toEqualTypeOf<ActionRecord[]>();
    expectTypeOf<AgentRecords['checkpoints']>().toEqualTypeOf<CheckpointRecord[]>();
    expectTypeOf<AgentRecords['evidence']>().toEqualTypeOf<EvidenceRecord[] | undefined>();
    expectTypeOf<RunRecord>().toHaveProperty('state');
    expectTypeOf<AgentRun['credential']>().toEqualTypeOf<RunCredential>();
  });

  it('types and checks fault plans, predicates and the $ref resolver', () => {
    const input: FaultPlanInput = {
      id: 'lost-ack',
      description: 'the refund is applied, its reply lost',
      faults: [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } }],
    };
    const plan: FaultPlan = faultline.faultPlanSchema.parse(input);
    const fault: Fault | undefined = plan.faults[0];
    const trigger: Trigger | undefined = fault?.trigger;
    const kind: FaultKind | undefined = fault?.kind;
    const predicate: Predicate = { path: 'order.status', op: 'eq', value: { $ref: 'want' } };
    const value: ValueExpr = { $ref: 'order.id' };

    expect(trigger?.on).toBe('call');
    expect(faultline.FAULT_KINDS).toContain(kind);
    expect(faultline.evaluate(predicate, { order: { status: 'paid' }, want: 'paid' })).toBe(true);
    expect(faultline.resolveValue(value, { order: { id: 'ord_1' } })).toBe('ord_1');
    expect(faultline.describePredicate(predicate)).toContain('order.status');
    expectTypeOf<FaultInput>().toHaveProperty('kind');
  });

  it('types a trial, its trajectory and the zoo', () => {
    expectTypeOf<TrialOptions['agentModule']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TrialResult['trajectory']>().toEqualTypeOf<Trajectory>();
    expectTypeOf<Trajectory['calls']>().toEqualTypeOf<WireCallRecord[]>();
    expectTypeOf<Trajectory['faults']['fired']>().toEqualTypeOf<FiredFault[]>();
    expectTypeOf<ExpectedOutcome>().toHaveProperty('state');
    expectTypeOf<ZooEntry>().toHaveProperty('create');
    expect(faultline.zooAgent('reference')?.name).toBe('reference');
  });
});

describe('faultline/config (config.ts)', () => {
  it('exports defineConfig and the config types', () => {
    const written: FaultlineConfigInput = config.defineConfig({
      agents: {
        mine: './my-agent.ts',
        inline: () => ({ name: 'x', start: () => Promise.resolve() }),
      },
      run: { agent: 'mine' },
    });
    const entry: AgentExport | string | undefined = written.agents?.inline;

    expect(typeof entry).toBe('function');
    expect(config.AUTONOMY_LEVELS).toContain('supervised');
    expect(config.LEVEL_DEFAULTS.supervised.k).toBe(3);
    expectTypeOf<FaultlineConfig['run']['agent']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<GateCriteria['k']>().toEqualTypeOf<number>();
  });
});

describe('faultline/recordings (recordings/index.ts)', () => {
  it('exports recording, redaction and replay', () => {
    for (const name of [
      'createCassette',
      'loadCassette',
      'saveCassette',
      'parseCassette',
      'cassetteSchema',
      'redact',
      'recordMcp',
      'recordHttp',
      'createReplayServer',
      'RecordingTransport',
      'InteractionLog',
      'ReplayPlanner',
    ] as const)
      expect(recordings[name], name).toBeDefined();
    expectTypeOf<Cassette>().toHaveProperty('interactions');
    expectTypeOf<Interaction>().toHaveProperty('kind');
    expectTypeOf<ReplayOptions>().toBeObject();
  });
});
