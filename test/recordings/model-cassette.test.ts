import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkModelCassettes,
  modelCassettePath,
  readModelCassette,
} from '../../recordings/model-cassette.js';
import { ModelReplayMissError } from '../../recordings/replay-model.js';
import { InvalidInputError } from '../../runtime/errors.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import { runTrial } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { deterministicPart } from '../../scenarios/trajectory.js';
import {
  KEY_ENV,
  OPENAI_BASE,
  openAiHandler,
  openAiSetup,
  promptAgent,
  SECRET_KEY,
  type SeenRequest,
} from '../support/model-cassette-harness.js';
import { plan, tmpOut } from '../support/trial-harness.js';

const server = setupServer();
const RUN_ID = 'refunds/partial-refund#no-faults#7';

beforeAll(() => {
  process.env[KEY_ENV] = SECRET_KEY;
  server.listen({ onUnhandledRequest: 'error' });
});
beforeEach(() => {
  server.resetHandlers();
});
afterAll(() => {
  server.close();
  delete process.env.FAULTLINE_TEST_CASSETTE_KEY;
});

function cassetteDir(): string {
  return mkdtempSync(join(tmpdir(), 'faultline-model-cassettes-'));
}

async function trial(
  cassettes: { recordDir?: string; replayDir?: string },
  agent: AgentUnderTest = promptAgent(),
) {
  return runTrial({
    scenario: partialRefund,
    agent: () => agent,
    faultPlan: plan('no-faults'),
    runId: RUN_ID,
    outDir: tmpOut(),
    model: openAiSetup(cassettes),
  });
}

/** Records the run once through the real OpenAI provider code over msw. */
async function recorded(): Promise<{ dir: string; seen: SeenRequest[]; trajectory: unknown }> {
  const dir = cassetteDir();
  const seen: SeenRequest[] = [];
  server.use(openAiHandler(seen));
  const { trajectory } = await trial({ recordDir: dir });
  server.resetHandlers();
  return { dir, seen, trajectory: deterministicPart(trajectory) };
}

describe('model cassettes: --record-model', () => {
  it('writes every call of the run — request as a delta, the untouched reply, usage, latency — to one file for the run', async () => {
    const { dir, seen } = await recorded();
    expect(seen).toHaveLength(2);
    const cassette = readModelCassette(modelCassettePath(dir, RUN_ID));
    expect(cassette).toMatchObject({
      format: 'faultline-model-cassette',
      version: 1,
      runId: RUN_ID,
      model: 'openai:gpt-4o-mini',
    });
    expect(cassette.calls.map((c) => c.modelId)).toEqual([
      'openai:gpt-4o-mini',
      'openai:gpt-4o-mini',
    ]);
    const [first, second] = cassette.calls;
    expect(first?.request).toMatchObject({ kept: 0, messages: [{ role: 'user' }] });
    expect(first?.request.tools?.length).toBeGreaterThan(0);
    expect(first?.reply).toMatchObject({
      content: [{ type: 'tool-call', toolName: 'get_order', input: '{"order_id":"ord_4"}' }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: { inputTokens: { total: 40 }, outputTokens: { total: 7 } },
      response: { id: 'chatcmpl-1', modelId: 'gpt-4o-mini' },
    });
    // The second request resends the first message: stored once, kept by count.
    expect(second?.request.kept).toBe(1);
    expect(second?.request.messages.map((m) => (m as { role: string }).role)).toEqual([
      'assistant',
      'tool',
    ]);
    expect(second?.request.tools).toBeUndefined();
    expect(second?.reply?.content).toEqual([{ type: 'text', text: 'The order is read; done.' }]);
    expect(first?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('never writes the API key: the provider sent it, the cassette does not hold it', async () => {
    const { dir, seen } = await recorded();
    expect(seen[0]?.authorization).toBe(`Bearer ${SECRET_KEY}`);
    const text = readFileSync(modelCassettePath(dir, RUN_ID), 'utf8');
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toMatch(/bearer/i);
    expect(text).not.toMatch(/authorization/i);
  });

  it('redacts a secret the agent pastes into its request, and replay still matches it', async () => {
    const dir = cassetteDir();
    server.use(openAiHandler());
    const leaky = () => promptAgent(`Read order ord_4, then stop. (My key is ${SECRET_KEY}.)`);
    await trial({ recordDir: dir }, leaky());
    server.resetHandlers();
    const text = readFileSync(modelCassettePath(dir, RUN_ID), 'utf8');
    expect(text).not.toContain(SECRET_KEY);
    expect(text).toContain('(My key is [REDACTED].)');
    // A tool's schema is not a secret: its `approval_token` property keeps its definition.
    expect(text).toMatch(/"approval_token": \{/);
    const { trajectory } = await trial({ replayDir: dir }, leaky());
    expect(trajectory.modelCalls).toHaveLength(2);
  });
});

describe('model cassettes: --replay-model', () => {
  it('re-runs offline (no handler, unhandled requests fail) byte-identically, twice, and as recorded', async () => {
    const { dir, trajectory } = await recorded();
    const first = await trial({ replayDir: dir });
    const second = await trial({ replayDir: dir });
    expect(first.trajectory.modelCalls).toHaveLength(2);
    expect(first.trajectory.outcome.state).toBe('completed');
    const a = JSON.stringify(deterministicPart(first.trajectory));
    const b = JSON.stringify(deterministicPart(second.trajectory));
    expect(a).toBe(b);
    // The recorded latency reaches the meter, so the recording run's trajectory is the same too.
    expect(a).toBe(JSON.stringify(trajectory));
  });

  it('a provider error is recorded and replayed as the same error (a 429 with its retry-after)', async () => {
    const dir = cassetteDir();
    let limited = false;
    server.use(
      http.post(`${OPENAI_BASE}/chat/completions`, async () => {
        if (limited) return undefined;
        limited = true;
        // Slow enough that a replay reporting its own (near zero) latency would differ.
        await delay(25);
        return HttpResponse.json(
          { error: { message: 'Rate limit reached', type: 'rate_limit_exceeded' } },
          { status: 429, headers: { 'retry-after': '0' } },
        );
      }),
      openAiHandler(),
    );
    const live = await trial({ recordDir: dir });
    server.resetHandlers();
    const errors = (t: typeof live) => t.trajectory.modelCalls?.map((c) => c.error?.class ?? null);
    expect(errors(live)).toEqual(['rate_limited', null, null]);
    const cassette = readModelCassette(modelCassettePath(dir, RUN_ID));
    expect(cassette.calls[0]?.error).toMatchObject({
      name: 'AI_APICallError',
      statusCode: 429,
      isRetryable: true,
    });
    const replayed = await trial({ replayDir: dir });
    expect(errors(replayed)).toEqual(['rate_limited', null, null]);
    // The failed call's message and latency too: the whole trajectory is the live one's.
    expect(JSON.stringify(deterministicPart(replayed.trajectory))).toBe(
      JSON.stringify(deterministicPart(live.trajectory)),
    );
  });

  it('replays with no key in the environment', async () => {
    const { dir } = await recorded();
    delete process.env.FAULTLINE_TEST_CASSETTE_KEY;
    try {
      const { trajectory } = await trial({ replayDir: dir });
      expect(trajectory.modelCalls?.map((c) => c.usage.inputTokens)).toEqual([40, 80]);
    } finally {
      process.env[KEY_ENV] = SECRET_KEY;
    }
  });

  it('a request that differs is a miss naming run, call, expected and actual — never a live call', async () => {
    const { dir } = await recorded();
    const seen: SeenRequest[] = [];
    server.use(openAiHandler(seen));
    const failure = await trial(
      { replayDir: dir },
      promptAgent('Read order ord_5, then stop.'),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(seen).toEqual([]);
    expect(failure).toBeInstanceOf(ModelReplayMissError);
    const miss = failure as ModelReplayMissError;
    expect(miss.code).toBe('model-replay-miss');
    expect(miss.data).toMatchObject({ runId: RUN_ID, call: 1, field: 'messages', at: 0 });
    expect(miss.data.expected).toContain('ord_4');
    expect(miss.data.actual).toContain('ord_5');
    expect(miss.message).toContain(`run ${RUN_ID}, call 1`);
    expect(miss.message).toMatch(/expected: .*ord_4/);
    expect(miss.message).toMatch(/actual: {3}.*ord_5/);
  });

  it('a run with no cassette is a miss at its first call', async () => {
    const failure = await trial({ replayDir: cassetteDir() }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelReplayMissError);
    expect((failure as ModelReplayMissError).data).toMatchObject({
      runId: RUN_ID,
      call: 1,
      field: 'recording',
    });
  });

  it('a call past the end of the recording is a miss', async () => {
    const { dir } = await recorded();
    const file = modelCassettePath(dir, RUN_ID);
    const cassette = readModelCassette(file);
    writeFileSync(file, JSON.stringify({ ...cassette, calls: cassette.calls.slice(0, 1) }));
    const failure = await trial({ replayDir: dir }).catch((error: unknown) => error);
    expect((failure as ModelReplayMissError).data).toMatchObject({ call: 2, field: 'recording' });
    expect((failure as ModelReplayMissError).data.expected).toContain('ends after 1 call');
  });
});

describe('model cassettes: checking a folder before a run', () => {
  function folderWith(cassette: unknown): { dir: string; file: string } {
    const dir = cassetteDir();
    const file = join(dir, 'a.json');
    writeFileSync(file, JSON.stringify(cassette));
    return { dir, file };
  }
  const valid = {
    format: 'faultline-model-cassette',
    version: 1,
    runId: 'r',
    model: 'openai:gpt-4o-mini',
    calls: [],
  };

  it('a cassette of another version is one line naming the file and the version', () => {
    const { dir, file } = folderWith({ ...valid, version: 2, calls: 'whatever' });
    expect(() => checkModelCassettes(dir)).toThrow(InvalidInputError);
    expect(() => checkModelCassettes(dir)).toThrow(
      `Invalid model cassette ${file}: version: must be 1, the only model cassette version this faultline reads (got 2); re-record with --record-model`,
    );
  });

  it('a malformed cassette names the field', () => {
    const { dir, file } = folderWith({
      ...valid,
      calls: [
        { index: 1, modelId: 'm', request: { kept: 3, messages: [], settings: {} }, latencyMs: 1 },
      ],
    });
    let message = '';
    try {
      checkModelCassettes(dir);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(new RegExp(`^Invalid model cassette ${file}: calls\\[0\\]`));
    expect(message).not.toContain('\n');
  });

  it('a file that is not JSON, a missing folder, and another model are each one line', () => {
    const dir = cassetteDir();
    writeFileSync(join(dir, 'b.json'), '{ nope');
    expect(() => checkModelCassettes(dir)).toThrow(
      /model cassette .*b\.json: \(root\): not valid JSON/,
    );
    expect(() => checkModelCassettes(join(dir, 'absent'))).toThrow(
      `Invalid --replay-model ${join(dir, 'absent')}: no such folder (record the cassettes first with --record-model DIR)`,
    );
    const other = folderWith(valid);
    expect(() => checkModelCassettes(other.dir, 'openai:gpt-4o')).toThrow(
      /model: recorded with openai:gpt-4o-mini, but --model is openai:gpt-4o/,
    );
    expect(checkModelCassettes(other.dir, 'openai:gpt-4o-mini').get('r')).toBe(other.file);
  });

  it('names a run’s file from its id, so the runs of a suite never share one', () => {
    mkdirSync(join(tmpdir(), 'x'), { recursive: true });
    expect(modelCassettePath('c', 'refunds/full-refund#lost-ack#7')).toBe(
      join('c', 'refunds__full-refund.lost-ack.7.json'),
    );
    expect(modelCassettePath('c', 'a/b#none#1')).not.toBe(modelCassettePath('c', 'a/b#none#2'));
  });
});
