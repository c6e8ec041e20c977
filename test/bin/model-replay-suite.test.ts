import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../../bin/run-suite.js';
import type { SuiteOptions } from '../../bin/suite.js';
import { ModelReplayMissError } from '../../recordings/replay-model.js';
import { withModelCassettes } from '../../bin/model-cassette-flags.js';
import {
  KEY_ENV,
  openAiHandler,
  openAiSetup,
  SECRET_KEY,
} from '../support/model-cassette-harness.js';
import { faultlineInProcess, tempDir } from '../support/cli.js';

const server = setupServer();
const AGENT = join(import.meta.dirname, '../fixtures/agents/prompt-agent.ts');

beforeAll(() => {
  process.env[KEY_ENV] = SECRET_KEY;
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => {
  delete process.env.FAULTLINE_TEST_PROMPT;
});
afterAll(() => {
  server.close();
  delete process.env.FAULTLINE_TEST_CASSETTE_KEY;
});

function suite(cassettes: { recordDir?: string; replayDir?: string }): SuiteOptions {
  return {
    globs: ['refunds/partial-refund', 'refunds/full-refund'],
    agent: 'prompt-agent',
    agentSource: { kind: 'module', module: AGENT },
    faults: 'none',
    trials: 1,
    scenarioFiles: [],
    regressions: 'regressions',
    model: openAiSetup(cassettes),
  };
}

let recorded: Promise<string> | undefined;

/**
 * Records the two-run suite over msw, then takes the network away: once for the file (the tests
 * only read the cassettes).
 */
function recordSuite(): Promise<string> {
  recorded ??= (async () => {
    const dir = tempDir('model-cassettes');
    server.use(openAiHandler());
    await runSuite(suite({ recordDir: dir }), { out: tempDir('recorded') });
    server.resetHandlers();
    return dir;
  })();
  return recorded;
}

describe('a suite replayed from model cassettes', () => {
  it('records one cassette per run and replays the suite offline', async () => {
    const dir = await recordSuite();
    expect(readdirSync(dir).sort()).toEqual([
      'refunds__full-refund.7.json',
      'refunds__partial-refund.7.json',
    ]);
    const serial = await runSuite(suite({ replayDir: dir }), { out: tempDir('serial') });
    // The emulated API counted tokens across the suite (40 per request so far): each run
    // replays the usage it was recorded with.
    expect(serial.results.map((r) => [r.figures.modelCalls, r.figures.inputTokens])).toEqual([
      [2, 120],
      [2, 280],
    ]);
  });

  // In a worker the miss crosses back as data (the worker found the cassette: the miss is in
  // the messages, not a missing recording) and stops the suite the same way.
  it('stops at the first miss, serial or in workers, and leaves the set in --out as it was', async () => {
    const dir = await recordSuite();
    const out = tempDir('kept');
    await runSuite(suite({ replayDir: dir }), { out });
    const before = readFileSync(join(out, 'results.jsonl'), 'utf8');
    process.env.FAULTLINE_TEST_PROMPT = 'Read order ord_5, then stop.';
    for (const workers of [1, 2]) {
      const failure = await runSuite(suite({ replayDir: dir }), { out, workers }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ModelReplayMissError);
      expect((failure as ModelReplayMissError).data).toMatchObject({ call: 1, field: 'messages' });
      expect(readFileSync(join(out, 'results.jsonl'), 'utf8')).toBe(before);
    }
    // Two threads load the sources through tsx (the agent is a module of the checkout): under
    // a loaded npm test that took more than the default 30 s.
  }, 120_000);
});

describe('faultline run --record-model / --replay-model', () => {
  it('need --model, exclude each other, and check the replay folder before anything runs', () => {
    expect(() => withModelCassettes(undefined, { replay: 'x' })).toThrow(
      '--replay-model needs --model PROVIDER:MODEL (the model the cassettes are recorded with)',
    );
    expect(() => withModelCassettes(openAiSetup({}), { replay: 'x', record: 'y' })).toThrow(
      /exclude each other/,
    );
    const missing = join(tempDir('none'), 'absent');
    expect(() => withModelCassettes(openAiSetup({}), { replay: missing })).toThrow(
      `${missing}: no such folder`,
    );
    expect(withModelCassettes(openAiSetup({}), { record: missing })?.recordDir).toBe(missing);
  });

  it('the command refuses a cassette flag for an agent without a model in one line, exit 2, nothing written', async () => {
    const out = join(tempDir('cli'), 'out');
    const ran = await faultlineInProcess([
      'run',
      'refunds/partial-refund',
      '--replay-model',
      'x',
      '--out',
      out,
    ]);
    expect(ran.status).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.trimEnd().split('\n')).toEqual([
      'faultline run: --replay-model: agent reference does not call a model (it does not declare exposes.model); leave the model options out, or choose an agent that calls one (tool-loop, model-planner)',
    ]);
  });
});
