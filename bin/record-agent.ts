import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_FAULTS } from '../faults/catalog.js';
import type { ModelSetup } from '../models/model-setup.js';
import type { InteractionLog } from '../recordings/interaction-log.js';
import { modelCassettePath } from '../recordings/model-cassette.js';
import { RecordingTransport } from '../recordings/recording-transport.js';
import { runTrial } from '../scenarios/engine.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { ScaledWallClock } from '../scenarios/wall-clock.js';
import { openLiveWorld, type LiveTarget } from '../scenarios/world/live-world.js';
import { chooseAgent, resolveAgent, type ResolvedAgent } from './agent-source.js';
import type { RecordedSessionParts } from './commands/record.js';
import { configFile, loadConfig } from './config.js';
import { withModelCassettes } from './model-cassette-flags.js';
import { modelSetupFromFlags, type ModelFlags } from './model-options.js';

/** An agent faultline runs against the live server, loaded and checked before anything is written. */
export interface PreparedAgent {
  readonly agent: ResolvedAgent;
  /** The agent's model, its calls recorded, when it calls one. */
  readonly model: ModelSetup | undefined;
}

/**
 * Loads the agent `--agent` names (zoo, config, module: as `faultline run` takes it) and its
 * model options (`--model`, `--prompt`, … as `run`'s), refusing a bad one in one line. A model
 * agent's calls are recorded to `--record-model DIR`, else `modelDir` (the recordings' `models/`).
 */
export async function prepareAgent(
  spec: string,
  flags: ModelFlags & { config?: string | undefined },
  modelDir: string,
): Promise<PreparedAgent> {
  const loaded = await loadConfig(flags.config);
  const file = configFile(flags.config);
  const agent = await resolveAgent(chooseAgent(spec, { file, agents: loaded.agents }));
  const chosen = modelSetupFromFlags(
    flags,
    loaded,
    { name: agent.name, callsModel: (await agent.create()).exposes?.model === true },
    { configFile: file },
  );
  const model =
    chosen === undefined
      ? undefined
      : withModelCassettes(chosen, { record: flags['record-model'] ?? modelDir });
  return { agent, model };
}

export interface AgentSessionOptions {
  readonly prepared: PreparedAgent;
  readonly target: LiveTarget;
  readonly scenario: Scenario;
  readonly runId: string;
  /** The agent's clock: the live server's wall time, scaled by `--time-scale`. */
  readonly clock: ScaledWallClock;
  readonly log: InteractionLog;
}

/**
 * Runs the agent through the engine on the scenario, its world the live server (a live world
 * in `forward` mode), with a {@link RecordingTransport} on the world's connection to the
 * server: what is recorded is what the live server was sent and what it answered (or did not,
 * in the agent's clock). The engine's own layers (credential, approvals desk, operator) stay
 * on faultline's side of the recorder.
 */
export async function recordAgentSession(
  options: AgentSessionOptions,
): Promise<RecordedSessionParts> {
  const { agent, model } = options.prepared;
  const { clock } = options;
  let recorder: RecordingTransport | undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'faultline-record-'));
  clock.start();
  try {
    const { trajectory } = await runTrial({
      scenario: options.scenario,
      agent: () => agent.create(),
      ...(agent.module === undefined ? {} : { agentModule: agent.module }),
      // The live side brings its own faults (faultline serve --plan); none are added here.
      faultPlan: NO_FAULTS,
      seed: options.scenario.world.seed,
      runId: options.runId,
      outDir: scratch,
      clock,
      // A live server takes the time it takes; the run's virtual time limit bounds it.
      wallLimitMs: Number.POSITIVE_INFINITY,
      ...(model === undefined ? {} : { model }),
      world: ({ clock: runClock }) =>
        openLiveWorld({
          target: options.target,
          clock: runClock,
          clientInfo: { name: agent.name, version: agent.version },
          wrapTransport: (transport) =>
            (recorder = new RecordingTransport(transport, options.log, {
              clock: () => runClock.now(),
            })),
        }),
    });
    // The engine has closed the world: every call still pending is recorded unanswered.
    recorder?.settle();
    const recorded = model?.recordDir;
    return {
      agent: { name: agent.name, version: agent.version },
      outcome: {
        state: trajectory.outcome.state,
        stopReason: trajectory.outcome.stopReason,
        detail: trajectory.outcome.detail,
      },
      server: recorder?.server,
      tools: [...(recorder?.tools.values() ?? [])],
      ...(recorded !== undefined && existsSync(modelCassettePath(recorded, options.runId))
        ? { modelDir: recorded }
        : {}),
    };
  } finally {
    clock.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
