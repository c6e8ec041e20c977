import { relative } from 'node:path';
import type { FaultPlan } from '../faults/catalog.js';
import { readRecordingFolder, type RecordedSession } from '../recordings/recording-folder.js';
import { STOP_REASONS } from '../runtime/contract.js';
import { parseInput } from '../runtime/validate.js';
import { scenarioSchema, type Scenario } from '../scenarios/scenario.js';
import { followedToTheEnd, RECORDED_WORLD } from '../scenarios/world/recorded-world.js';
import type { ResolvedAgent } from './agent-source.js';
import { agentArgument } from './agent-source.js';
import { modelWords } from './model-options.js';
import type { SuiteCase, SuiteOptions } from './suite.js';

/** The mode replayed runs are recorded in, whatever the recorded contract's autonomy. */
export const REPLAY_MODE = 'replay';

const ENDINGS = ['completed', 'failed', 'blocked', 'cancelled', 'compensated'] as const;
type Ending = (typeof ENDINGS)[number];
const isEnding = (state: string): state is Ending => (ENDINGS as readonly string[]).includes(state);
const isStopReason = (reason: string): reason is (typeof STOP_REASONS)[number] =>
  (STOP_REASONS as readonly string[]).includes(reason);

/**
 * The fault plan id a session's results carry: `recorded-` and the recorded run id's part after
 * the scenario id (`refunds/full-refund#none#0` → `recorded-none-0`), so each session is its own
 * row, pairs with itself across replays (compare, pass^k) and never with the library's plans.
 */
function planIdOf(session: RecordedSession, taken: Set<string>): string {
  const { runId } = session.session;
  const scenarioId = String(session.session.scenario.id);
  const rest = runId.startsWith(`${scenarioId}#`) ? runId.slice(scenarioId.length + 1) : runId;
  const slug = rest
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const base = `recorded${slug === '' ? '' : `-${slug}`}`;
  // Unique per scenario: results pair and group by scenario and plan together.
  const key = (id: string): string => `${scenarioId}\u0000${id}`;
  let id = base;
  for (let n = 2; taken.has(key(id)); n++) id = `${base}-${String(n)}`;
  taken.add(key(id));
  return id;
}

/**
 * The expected ending of a replay, or why there is none. Only a `pass` recording carries one:
 * the recorded path followed to its end, and the run ending in the recorded state. A `fail` or
 * unknown verdict leaves the outcome not judged.
 */
function expectedOf(
  session: RecordedSession,
): { expected: Scenario['expected'] } | { notJudged: string } {
  const { verdict, outcome } = session.session;
  if (verdict !== 'pass')
    return {
      notJudged:
        verdict === 'fail'
          ? 'the recorded session failed, so its end is no expected outcome'
          : 'the recording carries no verdict, so no expected outcome',
    };
  if (!isEnding(outcome.state))
    return {
      notJudged: `the recorded state "${outcome.state}" is not one a run can be expected to end in (${ENDINGS.join(', ')})`,
    };
  if (outcome.stopReason !== null && !isStopReason(outcome.stopReason))
    return {
      notJudged: `the recorded stop reason "${outcome.stopReason}" is not one faultline knows`,
    };
  return {
    expected: {
      state: outcome.state,
      ...(outcome.stopReason === null ? {} : { stopReason: outcome.stopReason }),
      world: followedToTheEnd(),
    },
  };
}

/**
 * Every case of `faultline run --replay DIR`: each recorded session of the folder, `trials`
 * times. A case's scenario is the recorded one, re-validated, its world replaced by the
 * session's cassette, with no fault plan; it runs under the recorded run id (the reference's
 * idempotency keys derive from it) and is recorded in mode `replay`. Built from data alone, so
 * every worker rebuilds the same list from the folder.
 */
export async function replayCases(
  options: SuiteOptions & { replay: string },
  agent: ResolvedAgent,
): Promise<SuiteCase[]> {
  const folder = await readRecordingFolder(options.replay);
  const agentWord = agentArgument(agent.source);
  const shownDir = relative(process.cwd(), folder.dir) || '.';
  const command = [
    `npx faultline run --replay ${shownDir.startsWith('..') ? folder.dir : shownDir}`,
    ...(agentWord === 'reference' ? [] : [`--agent ${agentWord}`]),
    ...modelWords(options.model),
  ].join(' ');
  const taken = new Set<string>();
  const cases: SuiteCase[] = [];
  for (const recorded of folder.sessions) {
    const raw = recorded.session.scenario;
    const world = (raw.world ?? {}) as { seed?: unknown };
    const ending = expectedOf(recorded);
    const scenario = parseInput(
      scenarioSchema,
      {
        ...raw,
        world: {
          name: RECORDED_WORLD,
          seed: world.seed,
          options: { cassette: recorded.file, match: 'sequence' },
          setup: [],
        },
        faultPlans: [],
        ...('expected' in ending ? { expected: ending.expected } : {}),
      },
      `cassette ${recorded.file}: session.scenario`,
    );
    const faultPlan: FaultPlan = {
      id: planIdOf(recorded, taken),
      description: `the recorded session ${recorded.session.runId}, replayed`,
      faults: [],
    };
    const { runId } = recorded.session;
    for (let trial = 0; trial < options.trials; trial++) {
      cases.push({
        index: cases.length,
        id: `${agent.name}|${REPLAY_MODE}|${scenario.id}|${faultPlan.id}|${String(trial)}`,
        scenario,
        faultPlan,
        trial,
        // Every trial replays the same session: same seed, same run id.
        seed: scenario.world.seed,
        mode: REPLAY_MODE,
        replay: command,
        runId,
        ...(trial === 0 ? {} : { storeKey: `${runId}#${String(trial)}` }),
        ...('notJudged' in ending ? { outcomeNotJudged: ending.notJudged } : {}),
      });
    }
  }
  return cases;
}
