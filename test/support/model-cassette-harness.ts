import { generateText, stepCountIs } from 'ai';
import { http, HttpResponse } from 'msw';
import { aiSdkAgent } from '../../adapters/ai-sdk.js';
import type { ModelSetup } from '../../models/model-setup.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';

/** Where the emulated OpenAI API answers, and the env var its (fake) key is read from. */
export const OPENAI_BASE = 'https://openai.test/v1';
export const KEY_ENV = 'FAULTLINE_TEST_CASSETTE_KEY';
export const SECRET_KEY = 'sk-test-cassette-0123456789abcdef';

/** Every request the emulated API saw: the Authorization header and the body. */
export interface SeenRequest {
  authorization: string | null;
  body: { messages: { role: string }[] };
}

/**
 * A tiny emulation of OpenAI's chat completions: the first turn asks for `get_order`, any turn
 * after a tool result says it is done. The real `@ai-sdk/openai` code talks to it over HTTP.
 */
export function openAiHandler(seen: SeenRequest[] = []) {
  return http.post(`${OPENAI_BASE}/chat/completions`, async ({ request }) => {
    const body = (await request.json()) as SeenRequest['body'];
    seen.push({ authorization: request.headers.get('authorization'), body });
    const answered = body.messages.some((m) => m.role === 'tool');
    const message = answered
      ? { role: 'assistant', content: 'The order is read; done.' }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_order', arguments: '{"order_id":"ord_4"}' },
            },
          ],
        };
    return HttpResponse.json({
      id: `chatcmpl-${seen.length}`,
      object: 'chat.completion',
      created: 1_700_000_000 + seen.length,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message, finish_reason: answered ? 'stop' : 'tool_calls' }],
      usage: {
        prompt_tokens: 40 * seen.length,
        completion_tokens: 7,
        total_tokens: 40 * seen.length + 7,
      },
    });
  });
}

/** The run's model: OpenAI's API at the emulated address, with cassette folders as given. */
export function openAiSetup(cassettes: { recordDir?: string; replayDir?: string }): ModelSetup {
  return {
    spec: 'openai:gpt-4o-mini',
    provider: 'openai',
    api: 'openai',
    modelId: 'gpt-4o-mini',
    baseURL: OPENAI_BASE,
    apiKeyEnv: KEY_ENV,
    prices: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
    ...cassettes,
  };
}

/** A tiny agent that hands `prompt` to `run.model` with the world's tools, up to four steps. */
export function promptAgent(prompt = 'Read order ord_4, then stop.'): AgentUnderTest {
  return aiSdkAgent({
    name: 'prompt-agent',
    start: async (run, { tools, abortSignal }) => {
      if (!run.model) throw new Error('the run gave no model');
      await generateText({
        model: run.model,
        tools,
        abortSignal,
        stopWhen: stepCountIs(4),
        prompt,
        ...(run.modelSettings?.temperature === undefined
          ? {}
          : { temperature: run.modelSettings.temperature }),
      });
      return { status: 'completed', detail: 'read the order' };
    },
  });
}
