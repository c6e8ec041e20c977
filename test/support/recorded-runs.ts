import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FaultPlan } from '../../faults/catalog.js';
import {
  createCassette,
  saveCassette,
  type Cassette,
  type InteractionDraft,
  type ToolInteraction,
  type RecordedTool,
} from '../../recordings/cassette.js';
import { InteractionLog } from '../../recordings/interaction-log.js';
import { RecordingTransport } from '../../recordings/recording-transport.js';
import { META } from '../../runtime/protocol.js';
import { sharedSchemaValidators } from '../../runtime/schema-validators.js';
import type { AgentRecords, AgentResult, AgentRun, AgentUnderTest } from '../../scenarios/agent.js';
import { runTrial, type TrialResult } from '../../scenarios/engine.js';
import { defineScenario, type Scenario } from '../../scenarios/scenario.js';
import { followedToTheEnd, type ReplayMatch } from '../../scenarios/world/recorded-world.js';

/**
 * An agent whose MCP client talks through a `RecordingTransport`: every `tools/call` and
 * `tools/list` it makes is recorded on the client's side, as `faultline record` records one.
 */
export class RecordingAgent implements AgentUnderTest {
  readonly log = new InteractionLog();
  readonly tools = new Map<string, RecordedTool>();

  constructor(private readonly inner: AgentUnderTest) {}

  get name(): string {
    return this.inner.name;
  }

  get exposes(): NonNullable<AgentUnderTest['exposes']> {
    return this.inner.exposes ?? {};
  }

  async start(run: AgentRun): Promise<AgentResult> {
    return this.inner.start(await this.recorded(run));
  }

  async resume(run: AgentRun): Promise<AgentResult> {
    return (this.inner.resume ?? this.inner.start).call(this.inner, await this.recorded(run));
  }

  records(storePath: string, runId: string): AgentRecords | undefined {
    return this.inner.records?.(storePath, runId);
  }

  discard(): void {
    this.inner.discard?.();
  }

  private async recorded(run: AgentRun): Promise<AgentRun> {
    const recorder = new RecordingTransport(await run.connect(), this.log);
    const client = new Client(
      { name: 'recorded-agent', version: '1.0.0' },
      { jsonSchemaValidator: sharedSchemaValidators },
    );
    await client.connect(recorder);
    await client.listTools();
    for (const [name, tool] of recorder.tools)
      if (!this.tools.has(name)) this.tools.set(name, tool);
    return { ...run, client };
  }
}

/** A recorded session: the cassette, where it was saved, and the live run it came from. */
export interface RecordedRun {
  readonly cassette: Cassette;
  readonly file: string;
  readonly live: TrialResult;
}

/**
 * Runs `agent` on `scenario` (under `plan`) with its client recorded, and saves the session as
 * a cassette in `dir`. A call whose reply the wire withheld (a lost acknowledgement) is
 * recorded as unanswered, as the client saw it: the transport's own log leaves such a call
 * out, so its place is taken from the run's wire log, which holds every call in order.
 */
export async function recordRun(
  scenario: Scenario,
  agent: AgentUnderTest,
  dir: string,
  options: { plan?: FaultPlan; name?: string } = {},
): Promise<RecordedRun> {
  const recording = new RecordingAgent(agent);
  const live = await runTrial({
    scenario,
    agent: () => recording,
    outDir: dir,
    ...(options.plan ? { faultPlan: options.plan } : {}),
  });
  // The transport records a withheld reply as unanswered on the wall clock; the wire log says
  // how long the run's own clock waited, so those calls are taken from it.
  const answered = recording.log
    .interactions()
    .filter((i): i is ToolInteraction => i.kind === 'tool' && i.unanswered === undefined);
  const drafts: InteractionDraft[] = [];
  let next = 0;
  const calls = live.trajectory.calls.filter((c) => c.echoOf === undefined);
  calls.forEach((call, i) => {
    if (call.reply === 'dropped' || call.reply === 'pending') {
      const after = calls[i + 1]?.at ?? live.trajectory.times.virtualMs;
      drafts.push({
        kind: 'tool',
        tool: call.tool,
        arguments: call.args,
        ...(call.idempotencyKey === null
          ? {}
          : { meta: { [META.idempotencyKey]: call.idempotencyKey } }),
        unanswered: { waitedMs: Math.max(0, after - call.at) },
      });
      return;
    }
    const got = answered[next++];
    if (got?.tool !== call.tool)
      throw new Error(`recording out of step at call ${i + 1} (${call.tool})`);
    const { step: _s, canonicalArgs: _c, occurrence: _o, ...draft } = got;
    drafts.push(draft);
  });
  const cassette = createCassette({
    source: { kind: 'mcp-transport', label: `engine run ${live.trajectory.runId}` },
    tools: [...recording.tools.values()],
    interactions: drafts,
    recordedAt: '2026-01-01T00:00:00.000Z',
  });
  const file = join(dir, `${options.name ?? 'session'}.cassette.json`);
  await saveCassette(file, cassette);
  return { cassette, file, live };
}

/**
 * `base` with a recorded world: the cassette at `file`, matched by `match`, and — unless given
 * — the expectation that the recording is followed to its end and the run completes.
 */
export function onRecording(
  base: Scenario,
  file: string,
  match: ReplayMatch,
  changes: Partial<Pick<Scenario, 'expected' | 'faultPlans' | 'id'>> = {},
): Scenario {
  return defineScenario({
    ...base,
    id: changes.id ?? `replay/${base.id.replace('/', '-')}`,
    world: { name: 'recorded', seed: 0, options: { cassette: file, match }, setup: [] },
    expected: changes.expected ?? { state: 'completed', world: followedToTheEnd() },
    faultPlans: changes.faultPlans ?? [],
  });
}
