import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ANTHROPIC_BASE_URL,
  COMPAT_BASE_URL,
  OPENAI_BASE_URL,
  scriptedAnswers,
  startProviderServer,
  type ProviderServer,
} from './provider-server.js';

const models: Record<string, () => LanguageModelV3> = {
  openai: () => createOpenAI({ apiKey: 'sk-test-openai', baseURL: OPENAI_BASE_URL }).chat('gpt-x'),
  anthropic: () =>
    createAnthropic({ apiKey: 'sk-ant-test', baseURL: ANTHROPIC_BASE_URL })('claude-x'),
  'openai-compatible': () =>
    createOpenAICompatible({
      name: 'local',
      apiKey: 'sk-local',
      baseURL: COMPAT_BASE_URL,
    }).chatModel('llama-x'),
};

let provider: ProviderServer | undefined;
afterEach(() => {
  provider?.close();
  provider = undefined;
});

describe.each(Object.keys(models))('the msw provider server, %s', (api) => {
  const model = (): LanguageModelV3 => (models[api] as () => LanguageModelV3)();

  it('runs a tool loop: the tool call reaches the tool, its result reaches the next request', async () => {
    provider = startProviderServer(
      scriptedAnswers([
        {
          toolCalls: [{ name: 'lookup', args: { id: 'A1' } }],
          usage: { inputTokens: 30, outputTokens: 7 },
        },
        { text: 'A1 is open', usage: { inputTokens: 50, outputTokens: 4 } },
      ]),
    );
    const seen: unknown[] = [];
    const result = await generateText({
      model: model(),
      system: 'You look things up.',
      prompt: 'What is A1?',
      tools: {
        lookup: tool({
          description: 'Looks an id up',
          inputSchema: z.object({ id: z.string() }),
          execute: ({ id }) => {
            seen.push(id);
            return Promise.resolve({ id, status: 'open' });
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('A1 is open');
    expect(seen).toEqual(['A1']);
    expect(result.totalUsage.inputTokens).toBe(80);
    expect(result.totalUsage.outputTokens).toBe(11);
    const [first, second] = provider.calls.map((c) => c.request);
    expect(first?.provider).toBe(api);
    expect(first?.system).toBe('You look things up.');
    expect(first?.messages).toEqual([{ role: 'user', text: 'What is A1?' }]);
    expect(first?.tools.map((t) => t.name)).toEqual(['lookup']);
    expect(second?.messages[1]?.toolCalls?.[0]).toMatchObject({
      name: 'lookup',
      args: { id: 'A1' },
    });
    expect(second?.messages[2]).toMatchObject({
      role: 'tool',
      result: { id: 'A1', status: 'open' },
    });
    expect(JSON.stringify(first?.headers)).toMatch(/sk-(test-openai|ant-test|local)/);
  });

  it('answers a 429 with retry-after as an API error the SDK sees', async () => {
    provider = startProviderServer(() => ({ status: 429, headers: { 'retry-after': '7' } }));
    const error = await generateText({ model: model(), prompt: 'hi', maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ statusCode: 429 });
    expect((error as { responseHeaders?: Record<string, string> }).responseHeaders).toMatchObject({
      'retry-after': '7',
    });
  });

  it('sends a malformed body that the SDK rejects', async () => {
    provider = startProviderServer(() => ({ status: 200, body: '{"choices": [' }));
    await expect(generateText({ model: model(), prompt: 'hi', maxRetries: 0 })).rejects.toThrow();
  });

  it('streams text and usage', async () => {
    provider = startProviderServer(() => ({
      text: 'streamed reply',
      usage: { inputTokens: 12, outputTokens: 3 },
    }));
    const result = streamText({ model: model(), prompt: 'hi' });
    expect(await result.text).toBe('streamed reply');
    expect((await result.usage).outputTokens).toBe(3);
    expect(provider.calls[0]?.request.stream).toBe(true);
  });
});

describe('the msw provider server, details', () => {
  it('passes the json schema of a structured-output request', async () => {
    provider = startProviderServer(() => ({ text: '{"next":"op-1"}' }));
    const result = await generateText({
      model: models.openai?.() as LanguageModelV3,
      prompt: 'choose',
      output: Output.object({ schema: z.object({ next: z.string() }) }),
    });
    expect(result.output).toEqual({ next: 'op-1' });
    expect(provider.calls[0]?.request.responseSchema).toMatchObject({
      properties: { next: { type: 'string' } },
    });
  });

  it('returns 5xx and delays so a caller can time out', async () => {
    provider = startProviderServer(
      scriptedAnswers([{ status: 503 }, { text: 'late', delayMs: 'infinite' }]),
    );
    await expect(
      generateText({ model: models.anthropic?.() as LanguageModelV3, prompt: 'x', maxRetries: 0 }),
    ).rejects.toMatchObject({ statusCode: 503 });
    await expect(
      generateText({
        model: models.anthropic?.() as LanguageModelV3,
        prompt: 'x',
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(50),
      }),
    ).rejects.toThrow();
  });
});
