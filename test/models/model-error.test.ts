import { APICallError } from '@ai-sdk/provider';
import { generateText, NoOutputGeneratedError, RetryError } from 'ai';
import { delay, http, HttpResponse, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { classifyModelError, isRetryError, toPlannerCallError } from '../../models/model-error.js';
import type { ModelSetup } from '../../models/model-setup.js';
import { openProviderModel } from '../../models/providers.js';
import { PlannerCallError } from '../../runtime/planner-call-error.js';

// Real provider code (the AI SDK's OpenAI and Anthropic providers) over HTTP, answered by msw:
// the errors classified here are the ones a live provider makes the SDK throw.
const OPENAI = 'http://openai.test/v1';
const ANTHROPIC = 'http://anthropic.test/v1';
const server = setupServer();

beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  process.env.FAULTLINE_TEST_KEY = 'sk-test-not-a-real-key';
});
afterEach(() => {
  server.resetHandlers();
});
afterAll(() => {
  server.close();
  delete process.env.FAULTLINE_TEST_KEY;
});

const setups: Record<'openai' | 'anthropic', ModelSetup> = {
  openai: {
    spec: 'openai:gpt-4o-mini',
    provider: 'openai',
    api: 'openai',
    modelId: 'gpt-4o-mini',
    baseURL: OPENAI,
    apiKeyEnv: 'FAULTLINE_TEST_KEY',
  },
  anthropic: {
    spec: 'anthropic:claude-3-5-haiku-latest',
    provider: 'anthropic',
    api: 'anthropic',
    modelId: 'claude-3-5-haiku-latest',
    baseURL: ANTHROPIC,
    apiKeyEnv: 'FAULTLINE_TEST_KEY',
  },
};
const endpoint = { openai: `${OPENAI}/chat/completions`, anthropic: `${ANTHROPIC}/messages` };

/** Each provider's own error body, as its API sends one. */
function errorBody(api: 'openai' | 'anthropic', type: string, message: string): JsonBodyType {
  return api === 'openai'
    ? { error: { message, type, code: type } }
    : { type: 'error', error: { type, message } };
}

/** The error the SDK throws for a call answered by `answer` (no SDK retries: the supervisor decides). */
async function failure(
  api: 'openai' | 'anthropic',
  answer: () => Response | Promise<Response>,
  timeoutMs?: number,
): Promise<unknown> {
  server.use(http.post(endpoint[api], answer));
  try {
    await generateText({
      model: openProviderModel(setups[api]),
      prompt: 'hello',
      maxRetries: 0,
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    });
  } catch (error) {
    return error;
  }
  throw new Error('the call did not fail');
}

describe.each(['openai', 'anthropic'] as const)('classifyModelError, %s over HTTP', (api) => {
  it('a 429 is rate_limited with the retry-after header in milliseconds', async () => {
    const error = await failure(api, () =>
      HttpResponse.json(errorBody(api, 'rate_limit_error', 'Rate limit reached'), {
        status: 429,
        headers: { 'retry-after': '7' },
      }),
    );

    expect(classifyModelError(error)).toMatchObject({ class: 'rate_limited', retryAfterMs: 7000 });
  });

  it('a 429 with retry-after-ms (OpenAI sends it) takes the finer figure', async () => {
    const error = await failure(api, () =>
      HttpResponse.json(errorBody(api, 'rate_limit_error', 'Rate limit reached'), {
        status: 429,
        headers: { 'retry-after-ms': '1500', 'retry-after': '2' },
      }),
    );

    expect(classifyModelError(error)).toMatchObject({ class: 'rate_limited', retryAfterMs: 1500 });
  });

  it('a 429 whose retry-after is an HTTP date waits until then', async () => {
    const now = Date.parse('2026-12-01T12:00:00Z');
    const error = await failure(api, () =>
      HttpResponse.json(errorBody(api, 'rate_limit_error', 'slow down'), {
        status: 429,
        headers: { 'retry-after': 'Tue, 01 Dec 2026 12:00:30 GMT' },
      }),
    );

    expect(classifyModelError(error, now)).toMatchObject({
      class: 'rate_limited',
      retryAfterMs: 30_000,
    });
  });

  it.each([500, 502, 503, 529])('a %i is transient', async (status) => {
    const error = await failure(api, () =>
      HttpResponse.json(errorBody(api, 'server_error', 'The server had an error'), { status }),
    );

    const classified = classifyModelError(error);
    expect(classified.class).toBe('transient');
    expect(classified.message).toMatch(/server had an error/);
  });

  it('a 503 whose body is an HTML page (a gateway in front of the API) is transient', async () => {
    const error = await failure(
      api,
      () => new HttpResponse('<html><body>503 Service Unavailable</body></html>', { status: 503 }),
    );

    expect(classifyModelError(error).class).toBe('transient');
  });

  it.each([
    [401, 'unauthenticated'],
    [403, 'forbidden'],
  ] as const)('a %i is %s', async (status, cls) => {
    const error = await failure(api, () =>
      HttpResponse.json(errorBody(api, 'authentication_error', 'invalid x-api-key'), { status }),
    );

    expect(classifyModelError(error).class).toBe(cls);
  });

  it('a 400 (a request the API refuses) is invalid_argument', async () => {
    const error = await failure(api, () =>
      HttpResponse.json(errorBody(api, 'invalid_request_error', 'prompt is too long'), {
        status: 400,
      }),
    );

    expect(classifyModelError(error).class).toBe('invalid_argument');
  });

  it('a 200 whose body is not JSON is a malformed reply', async () => {
    const error = await failure(
      api,
      () =>
        new HttpResponse('{"id": "chatcmpl-1", "choi', {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
    );

    expect(classifyModelError(error).class).toBe('malformed_reply');
  });

  it('a 200 whose JSON lacks the fields the API promises is a malformed reply', async () => {
    const error = await failure(api, () => HttpResponse.json({ id: 'x', object: 'unexpected' }));

    expect(classifyModelError(error).class).toBe('malformed_reply');
  });

  it('a response that never comes, aborted by the call timeout, is a timeout', async () => {
    const error = await failure(
      api,
      async () => {
        await delay('infinite');
        return HttpResponse.json({});
      },
      50,
    );

    expect(classifyModelError(error).class).toBe('timeout');
  });

  it('a refused connection is transient', async () => {
    const error = await failure(api, () => HttpResponse.error());

    expect(classifyModelError(error).class).toBe('transient');
  });
});

describe('classifyModelError, beyond one HTTP reply', () => {
  it('sees through the SDK retries to the last error (an ordinary agent keeps them on)', async () => {
    let calls = 0;
    server.use(
      http.post(endpoint.openai, () => {
        calls++;
        return HttpResponse.json(errorBody('openai', 'rate_limit_error', 'slow down'), {
          status: 429,
          headers: { 'retry-after-ms': '1' },
        });
      }),
    );
    const error = await generateText({
      model: openProviderModel(setups.openai),
      prompt: 'hello',
      maxRetries: 1,
    }).catch((e: unknown) => e);

    expect(calls).toBe(2);
    expect(classifyModelError(error)).toMatchObject({ class: 'rate_limited', retryAfterMs: 1 });
  });

  it("tells the SDK's RetryError without importing the SDK, as RetryError.isInstance does", () => {
    const last = new APICallError({
      message: 'slow down',
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 429,
    });
    const retry = new RetryError({
      message: 'gave up',
      reason: 'maxRetriesExceeded',
      errors: [last],
    });
    const others: unknown[] = [
      last,
      new NoOutputGeneratedError(),
      new Error('AI_RetryError'),
      null,
      'x',
      {},
    ];

    expect(isRetryError(retry)).toBe(RetryError.isInstance(retry));
    expect(isRetryError(retry)).toBe(true);
    for (const other of others) expect(isRetryError(other)).toBe(RetryError.isInstance(other));
  });

  it('a reply that is not the structured output asked for is invalid_output', async () => {
    server.use(
      http.post(endpoint.openai, () =>
        HttpResponse.json({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: 'gpt-4o-mini',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: '{"kind": "act", "tool":' },
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
        }),
      ),
    );
    const { Output } = await import('ai');
    const { z } = await import('zod');
    const error = await generateText({
      model: openProviderModel(setups.openai),
      prompt: 'hello',
      maxRetries: 0,
      output: Output.object({ schema: z.object({ kind: z.string() }) }),
    }).then(
      (r) => r.output,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toMatch(/^AI_No(Object|Output)GeneratedError$/);
    expect(classifyModelError(error).class).toBe('invalid_output');
  });
});

describe('toPlannerCallError', () => {
  it('carries the class and retry-after to the runtime, the provider error as its cause', async () => {
    const error = await failure('openai', () =>
      HttpResponse.json(errorBody('openai', 'rate_limit_error', 'Rate limit reached'), {
        status: 429,
        headers: { 'retry-after': '3' },
      }),
    );

    const wrapped = toPlannerCallError(error);

    expect(wrapped).toBeInstanceOf(PlannerCallError);
    expect(wrapped.failureClass).toBe('rate_limited');
    expect(wrapped.retryAfterMs).toBe(3000);
    expect(wrapped.cause).toBe(error);
    expect(wrapped.message).toMatch(/Rate limit reached/);
  });
});
