import { describe, expect, it } from 'vitest';
import { parseBlueprint, type BlueprintInput } from '../../runtime/blueprint.js';
import { ScriptedPlanner } from '../../runtime/scripted-planner.js';
import { RunStore } from '../../runtime/store.js';
import { createCassette, parseCassette } from '../../recordings/cassette.js';
import { InteractionLog } from '../../recordings/interaction-log.js';
import { recordingPlanner, ReplayPlanner } from '../../recordings/model-replay.js';
import {
  ORDER,
  refundBlueprint,
  refundContract,
  refundHarness,
} from '../support/refund-harness.js';
import type { Planner } from '../../runtime/planner.js';

async function runWith(planner: Planner, blueprint: BlueprintInput) {
  const h = refundHarness({ honourKeys: true });
  const connection = await h.connect();
  const store = RunStore.open(h.storePath);
  const outcome = await h
    .runtime(connection, store, { planner })
    .start({ runId: 'run-1', input: { order_id: ORDER }, contract: refundContract(), blueprint });
  const effects = h.world.ledger.entries().map((e) => e.identity);
  store.close();
  await connection.close();
  return { outcome, effects };
}

describe('model replies: record and replay', () => {
  it('replays a recorded planner exactly, answering from the cassette alone', async () => {
    const blueprint = refundBlueprint(true);
    const log = new InteractionLog();
    const live = await runWith(
      recordingPlanner(new ScriptedPlanner(parseBlueprint(blueprint)), log),
      blueprint,
    );
    const cassette = parseCassette(
      JSON.parse(
        JSON.stringify(
          createCassette({
            source: { kind: 'mcp-transport', label: 'planner' },
            tools: [],
            interactions: log.interactions(),
            recordedAt: '2026-11-29T00:00:00.000Z',
          }),
        ),
      ),
      'round trip',
    );
    expect(cassette.interactions.every((i) => i.kind === 'model')).toBe(true);

    const replay = new ReplayPlanner(cassette);
    const replayed = await runWith(replay, blueprint);

    expect(live.outcome.state).toBe('completed');
    expect(replayed.outcome.state).toBe('completed');
    expect(replayed.effects).toEqual(live.effects);
    expect(replay.divergence).toBeNull();
    expect(replay.remaining()).toBe(0);
  });

  it('stops a changed agent at the first divergence, naming the step, and calls no model', async () => {
    const blueprint = refundBlueprint(true);
    const log = new InteractionLog();
    await runWith(recordingPlanner(new ScriptedPlanner(parseBlueprint(blueprint)), log), blueprint);
    const cassette = createCassette({
      source: { kind: 'mcp-transport', label: 'planner' },
      tools: [],
      interactions: log.interactions(),
      recordedAt: '2026-11-29T00:00:00.000Z',
    });
    // The changed agent follows a plan without the customer message.
    const changed: BlueprintInput = { ...blueprint, operations: blueprint.operations.slice(0, 2) };

    const replay = new ReplayPlanner(cassette);
    const replayed = await runWith(replay, changed);

    expect(replay.divergence?.step).toBe(1);
    expect(replay.divergence?.message).toContain('request 1 differs from the recording');
    expect(replayed.outcome.state).toBe('blocked');
    expect(replayed.outcome.detail).toContain('replay divergence at model step 1');
    expect(replayed.effects).toEqual([]);
  });
});
