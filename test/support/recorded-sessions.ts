import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { gradeRun } from '../../graders/index.js';
import type { ModelSetup } from '../../models/model-setup.js';
import {
  createCassette,
  RecordingTransport,
  saveCassette,
  type Cassette,
  type CassetteSession,
  type Interaction,
  type InteractionDraft,
  type ToolInteraction,
} from '../../recordings/index.js';
import {
  RECORDING_INDEX_FILE,
  RECORDING_INDEX_FORMAT,
  RECORDING_INDEX_VERSION,
  type IndexedSession,
} from '../../recordings/recording-index.js';
import type { AgentRun, AgentUnderTest } from '../../scenarios/agent.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { runScenario } from '../../scenarios/runner.js';
import type { Trajectory } from '../../scenarios/trajectory.js';

/**
 * Records sessions of library scenarios the way `faultline record` does, without it: the agent
 * runs in process against the library world, its MCP client on a `RecordingTransport`, and the
 * session (run id, scenario, outcome, verdict from the graders) goes in the cassette. What the
 * replay tests replay; faultline record's own output is the same format.
 */
export interface SessionSpec {
  scenarioId: string;
  /** A zoo agent (default: reference). */
  agent?: string;
  /** Overrides the verdict the graders give (null: not known). */
  verdict?: 'pass' | 'fail' | null;
  /** The model of a model agent (its replies replayed from a model cassette folder, say). */
  model?: ModelSetup;
  /** A fault plan of the scenario the live side ran under (a lost acknowledgement, say). */
  plan?: string;
}

/** The agent, its tool calls recorded through a client of its own on `run.connect()`. */
function recording(
  inner: AgentUnderTest,
  recorder: { transport?: RecordingTransport },
): AgentUnderTest {
  const wrap = async (run: AgentRun): Promise<AgentRun> => {
    const transport = new RecordingTransport(await run.connect());
    recorder.transport = transport;
    const client = new Client({ name: 'recorder', version: '0.0.0' });
    await client.connect(transport);
    await client.listTools();
    return { ...run, client };
  };
  return {
    name: inner.name,
    ...(inner.version === undefined ? {} : { version: inner.version }),
    ...(inner.exposes === undefined ? {} : { exposes: inner.exposes }),
    start: async (run) => inner.start(await wrap(run)),
    ...(inner.records ? { records: (s: string, r: string) => inner.records?.(s, r) } : {}),
  };
}

/**
 * The client's interactions with the calls that got no reply put back in their places, as
 * unanswered (the transport's log leaves them out; the run's wire log holds every call in order).
 */
function asTheClientSawThem(
  trajectory: Trajectory,
  answered: readonly Interaction[],
): InteractionDraft[] {
  // The transport records a withheld reply as unanswered on the wall clock; the wire log says
  // how long the run's own clock waited, so those calls are taken from it.
  const replies = answered.filter(
    (i): i is ToolInteraction => i.kind === 'tool' && i.unanswered === undefined,
  );
  const calls = trajectory.calls.filter((c) => c.echoOf === undefined);
  let next = 0;
  return calls.map((call, i): InteractionDraft => {
    if (call.reply === 'dropped' || call.reply === 'pending') {
      const after = calls[i + 1]?.at ?? trajectory.times.virtualMs;
      return {
        kind: 'tool',
        tool: call.tool,
        arguments: call.args,
        unanswered: { waitedMs: Math.max(0, after - call.at) },
      };
    }
    const got = replies[next++];
    if (got?.tool !== call.tool) throw new Error(`recording out of step at call ${i + 1}`);
    const { step: _s, canonicalArgs: _c, occurrence: _o, ...draft } = got;
    return draft;
  });
}

/** One session recorded: its cassette (not yet saved). */
export async function recordSession(spec: SessionSpec): Promise<Cassette> {
  const scenario = BUILT_IN_SCENARIOS.find((s) => s.id === spec.scenarioId);
  if (!scenario) throw new Error(`no scenario ${spec.scenarioId}`);
  const entry = zooAgent(spec.agent ?? 'reference');
  if (!entry) throw new Error(`no agent ${spec.agent}`);
  const recorder: { transport?: RecordingTransport } = {};
  const scratch = mkdtempSync(join(tmpdir(), 'faultline-recording-'));
  try {
    const agent = recording(entry.create(), recorder);
    const plan = scenario.faultPlans.find((p) => p.id === spec.plan);
    if (spec.plan !== undefined && !plan) throw new Error(`no plan ${spec.plan}`);
    const run = await runScenario(scenario, {
      outDir: scratch,
      agent: () => agent,
      ...(plan === undefined ? {} : { faultPlan: plan }),
      ...(spec.model === undefined ? {} : { model: spec.model }),
    });
    const transport = recorder.transport;
    if (!transport) throw new Error('the agent never connected');
    const graded = gradeRun(scenario, run.trajectory);
    const session: CassetteSession = {
      runId: run.runId,
      scenario: JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>,
      faultPlanId: plan?.id ?? 'none',
      mode: scenario.contract.autonomy,
      agent: { name: agent.name, version: agent.version ?? 'unknown' },
      outcome: { state: run.state, stopReason: run.stopReason, detail: run.detail },
      verdict: spec.verdict === undefined ? (graded.pass ? 'pass' : 'fail') : spec.verdict,
      verdictSource: 'graders',
      modelCassette: null,
      wallMs: 0,
    };
    return createCassette({
      source: { kind: 'mcp-transport', label: `library world ${scenario.world.name}` },
      tools: [...transport.tools.values()],
      interactions: asTheClientSawThem(run.trajectory, transport.log.interactions()),
      recordedAt: '2026-01-01T00:00:00.000Z',
      session,
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The cassette's file name in a folder, from its run id (`refunds__full-refund.none.0.json` style). */
export const cassetteFile = (runId: string): string =>
  `${runId.replace(/\//g, '__').replace(/#/g, '.')}.json`;

/** The index entry of a cassette saved as `file`. */
export function indexEntry(file: string, cassette: Cassette): IndexedSession {
  const s = cassette.session;
  if (!s) throw new Error('a cassette without a session');
  const tools = cassette.interactions.filter((i) => i.kind === 'tool');
  return {
    file,
    runId: s.runId,
    scenarioId: String(s.scenario.id),
    faultPlanId: s.faultPlanId,
    agent: s.agent.name,
    mode: s.mode,
    recordedAt: cassette.recordedAt,
    toolCalls: tools.length,
    unanswered: tools.filter((i) => i.unanswered !== undefined).length,
    verdict: s.verdict,
  };
}

/** Writes a recordings folder: each cassette, then the index naming them. */
export async function writeRecordingFolder(
  dir: string,
  cassettes: readonly Cassette[],
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const sessions: IndexedSession[] = [];
  for (const cassette of cassettes) {
    const file = cassetteFile(cassette.session?.runId ?? 'unnamed');
    await saveCassette(join(dir, file), cassette);
    sessions.push(indexEntry(file, cassette));
  }
  writeFileSync(
    join(dir, RECORDING_INDEX_FILE),
    `${JSON.stringify({ format: RECORDING_INDEX_FORMAT, version: RECORDING_INDEX_VERSION, sessions }, null, 2)}\n`,
  );
}
