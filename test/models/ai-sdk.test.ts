import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { loadAiSdk } from '../../models/ai-sdk.js';

describe('loadAiSdk', () => {
  it('loads the SDK once and hands the same module out again', async () => {
    const ai = await loadAiSdk();
    expect(typeof ai.generateText).toBe('function');
    expect(await loadAiSdk()).toBe(ai);
  });

  // The virtual clock jumps to its next timer when the event loop goes a turn with no work: an
  // import() inside a run (with tsx's hooks, often a round trip to their thread) let a replayed
  // run reach its time limit before its first model call. loadAiSdk never lets the loop turn;
  // a wait for the next turn shows the probe would see one.
  it('with tsx hooks registered, hands it out without the event loop going a turn', async () => {
    const worker = new Worker(new URL('../fixtures/ai-sdk-turns.mjs', import.meta.url));
    const [turns] = (await once(worker, 'message')) as [{ loadAiSdk: boolean; nextTurn: boolean }];
    await worker.terminate();
    expect(turns).toEqual({ loadAiSdk: true, nextTurn: false });
  });
});
