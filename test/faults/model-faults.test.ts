import type {
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { FaultInput } from '../../faults/catalog.js';
import { compactPrompt, garbleResult } from '../../faults/model-faults.js';
import type { ModelSetup } from '../../models/model-setup.js';
import type { Planner } from '../../runtime/planner.js';
import type { WorkingContext } from '../../runtime/working-context.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import { ReferenceAgent } from '../../scenarios/agents/reference.js';
import { runTrial } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Trajectory } from '../../scenarios/trajectory.js';
import { plan, tmpOut } from '../support/trial-harness.js';

const usage: LanguageModelV3Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that answers call n with a JSON note naming n (as a provider would, untouched). */
function answeringModel(): MockLanguageModelV3 {
  let n = 0;
  return new MockLanguageModelV3({
    provider: 'mock',
    modelId: 'desk-model',
    doGenerate: () => {
      n++;
      const result: LanguageModelV3GenerateResult = {
        content: [{ type: 'text', text: JSON.stringify({ turn: n, note: 'refund 25.00 now' }) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
      return Promise.resolve(result);
    },
  });
}

const SYSTEM = 'You are the refunds desk.';

/** An agent of its own: a chat loop that keeps its transcript and calls `run.model` each turn. */
function chatAgent(turns: number, received: string[]): AgentUnderTest {
  return {
    name: 'test-chat',
    exposes: { model: true },
    start: async (run) => {
      if (!run.model) throw new Error('the run has no model');
      const messages: ModelMessage[] = [{ role: 'user', content: 'Refund 25.00 on the order.' }];
      for (let i = 1; i <= turns; i++) {
        const { text } = await generateText({
          model: run.model,
          system: SYSTEM,
          messages,
          maxRetries: 0,
        });
        received.push(text);
        messages.push(
          { role: 'assistant', content: text },
          { role: 'user', content: `Turn ${i} is done; what next?` },
        );
      }
      return { status: 'completed' };
    },
  };
}

const mockSetup = (model: MockLanguageModelV3): ModelSetup => ({
  spec: 'mock:desk-model',
  provider: 'mock',
  api: 'openai',
  modelId: 'desk-model',
  languageModel: model,
});

async function chatRun(fault: FaultInput, model = answeringModel(), turns = 4) {
  const received: string[] = [];
  const { trajectory } = await runTrial({
    scenario: partialRefund,
    agent: () => chatAgent(turns, received),
    faultPlan: plan('model-fault', fault),
    outDir: tmpOut(),
    model: mockSetup(model),
  });
  return { trajectory, received, model };
}

function modelCalls(t: Trajectory) {
  return t.modelCalls ?? [];
}

describe('invalid-output at the model', () => {
  it('garbles what the provider returned on the nth model call, once', async () => {
    const { trajectory, received } = await chatRun({
      kind: 'invalid-output',
      trigger: { on: 'proposal', nth: 2 },
    });

    const whole = JSON.stringify({ turn: 2, note: 'refund 25.00 now' });
    expect(received[1]).toBe(whole.slice(0, Math.ceil(whole.length / 2)));
    expect(() => JSON.parse(received[1] ?? '') as unknown).toThrow();
    expect(JSON.parse(received[2] ?? '')).toEqual({ turn: 3, note: 'refund 25.00 now' });
    expect(trajectory.faults.fired).toEqual([
      expect.objectContaining({
        index: 0,
        kind: 'invalid-output',
        detail: 'model call 2: the reply is garbled (cut off half-way)',
      }),
    ]);
    const calls = modelCalls(trajectory);
    expect(calls.map((c) => c.fault)).toEqual([
      null,
      'model call 2: the reply is garbled (cut off half-way)',
      null,
      null,
    ]);
    // The meter records what the agent received.
    expect(calls[1]?.reply?.text).toBe(received[1]);
  });

  it("cuts a tool call's input so its arguments no longer parse", () => {
    const result = garbleResult({
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call-1',
          toolName: 'issue_refund',
          input: '{"order_id":"ord_4","amount_cents":2500}',
        },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    });

    const call = result.content[0];
    expect(call).toMatchObject({ type: 'tool-call', toolName: 'issue_refund' });
    const input = call?.type === 'tool-call' ? call.input : '';
    expect(input).toBe('{"order_id":"ord_4",');
    expect(() => JSON.parse(input) as unknown).toThrow();
    expect(result.finishReason.unified).toBe('tool-calls');
  });
});

describe('invalid-output at the model, on a tool call', () => {
  it('the SDK cannot parse the cut arguments: the tool is not run, and the model is told of the error', async () => {
    let n = 0;
    const model = new MockLanguageModelV3({
      provider: 'mock',
      modelId: 'desk-model',
      doGenerate: () => {
        n++;
        const content: LanguageModelV3GenerateResult['content'] =
          n === 1
            ? [
                {
                  type: 'tool-call',
                  toolCallId: 'call-1',
                  toolName: 'lookup_order',
                  input: JSON.stringify({ order_id: 'ord_4' }),
                },
              ]
            : [{ type: 'text', text: 'done' }];
        return Promise.resolve({
          content,
          finishReason:
            n === 1
              ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
              : { unified: 'stop' as const, raw: 'stop' },
          usage,
          warnings: [],
        });
      },
    });
    const looked: unknown[] = [];
    const agent: AgentUnderTest = {
      name: 'test-tools',
      exposes: { model: true },
      start: async (run) => {
        if (!run.model) throw new Error('the run has no model');
        await generateText({
          model: run.model,
          prompt: 'Look up ord_4.',
          maxRetries: 0,
          stopWhen: stepCountIs(2),
          tools: {
            lookup_order: tool({
              inputSchema: z.object({ order_id: z.string() }),
              execute: (input) => {
                looked.push(input);
                return Promise.resolve({ total_cents: 3000 });
              },
            }),
          },
        });
        return { status: 'completed' };
      },
    };

    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: () => agent,
      faultPlan: plan('garbled-call', {
        kind: 'invalid-output',
        trigger: { on: 'proposal', nth: 1 },
      }),
      outDir: tmpOut(),
      model: mockSetup(model),
    });

    expect(looked).toEqual([]);
    const second = JSON.stringify(model.doGenerateCalls[1]?.prompt);
    expect(second).toContain('"role":"tool"');
    expect(second).toMatch(/Invalid input for tool lookup_order/);
    expect(modelCalls(trajectory)[0]?.reply?.toolCalls).toEqual([
      { id: 'call-1', name: 'lookup_order', args: '{"order_id' },
    ]);
  });
});

describe('context-compaction at the model', () => {
  it('sends the provider a prompt cut to fit, this call only; the agent keeps its transcript', async () => {
    const { trajectory, model } = await chatRun(
      { kind: 'context-compaction', trigger: { on: 'proposal', nth: 4 } },
      answeringModel(),
      5,
    );

    const sent = model.doGenerateCalls.map((c) => c.prompt);
    const third = sent[3] ?? [];
    const fourth = sent[4] ?? [];
    // The agent sent system + 7 messages on call 4 (u, a, u, a, u, a, u); the provider got fewer.
    expect(sent[2]?.length).toBe(6);
    expect(third.length).toBeLessThan(8);
    expect(third[0]).toEqual({ role: 'system', content: SYSTEM });
    expect(third[1]?.role).toBe('user');
    expect(JSON.stringify(third.at(-1))).toContain('Turn 3 is done');
    expect(JSON.stringify(third)).not.toContain('Refund 25.00 on the order.');
    expect(JSON.stringify(third).length).toBeLessThanOrEqual(JSON.stringify(sent[2]).length * 2);
    // Call 5 is whole again: system + 9 messages.
    expect(fourth.length).toBe(10);
    expect(trajectory.faults.fired).toEqual([
      expect.objectContaining({
        kind: 'context-compaction',
        detail: expect.stringMatching(
          /^model call 4: context compacted to a \d+-character budget: dropped the \d+ oldest of 8 messages/,
        ) as string,
      }),
    ]);
    expect(modelCalls(trajectory)[3]?.fault).toMatch(/context compacted/);
  });

  it('keeps the system prompt, the latest user turn and the latest exchange, and never splits a tool call from its result', () => {
    const call = (id: string, args: string) => ({
      role: 'assistant' as const,
      content: [
        { type: 'tool-call' as const, toolCallId: id, toolName: 'get_order', input: { args } },
      ],
    });
    const result = (id: string, value: string) => ({
      role: 'tool' as const,
      content: [
        {
          type: 'tool-result' as const,
          toolCallId: id,
          toolName: 'get_order',
          output: { type: 'text' as const, value },
        },
      ],
    });
    const big = 'x'.repeat(400);
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: [{ type: 'text', text: 'Refund 25.00 on ord_4.' }] },
      call('c1', 'first'),
      result('c1', big),
      call('c2', 'second'),
      result('c2', big),
      call('c3', 'third'),
      result('c3', big),
    ];

    const compacted = compactPrompt(prompt);

    const kept = compacted.prompt;
    expect(kept[0]?.role).toBe('system');
    expect(kept[1]).toEqual(prompt[1]);
    expect(kept.slice(-2)).toEqual(prompt.slice(-2));
    expect(compacted.dropped).toBe(4);
    expect(compacted.after).toBeLessThanOrEqual(compacted.budget);
    // Every tool result left answers a tool call left.
    const calls = new Set(
      kept.flatMap((m) =>
        m.role === 'assistant'
          ? m.content.flatMap((p) => (p.type === 'tool-call' ? [p.toolCallId] : []))
          : [],
      ),
    );
    for (const m of kept)
      if (m.role === 'tool')
        for (const p of m.content)
          if (p.type === 'tool-result') expect(calls).toContain(p.toolCallId);
  });

  it('drops nothing when all there is is the system prompt and the latest turn', () => {
    const prompt: LanguageModelV3Prompt = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: [{ type: 'text', text: 'x'.repeat(500) }] },
    ];

    expect(compactPrompt(prompt)).toMatchObject({ prompt, dropped: 0 });
  });
});

// The swap needs a provider to reopen: the AI SDK's OpenAI provider over HTTP, served by msw.
const BASE = 'http://openai.test/v1';
const server = setupServer();
const asked: { model: string; system: string }[] = [];
beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
  process.env.FAULTLINE_TEST_KEY = 'sk-test-not-a-real-key';
  server.use(
    http.post(`${BASE}/chat/completions`, async ({ request }) => {
      const body = (await request.json()) as {
        model: string;
        messages: { role: string; content: string }[];
      };
      const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
      asked.push({ model: body.model, system });
      if (body.model === 'no-such-model')
        return HttpResponse.json(
          {
            error: {
              message: 'The model `no-such-model` does not exist',
              type: 'invalid_request_error',
            },
          },
          { status: 404 },
        );
      return HttpResponse.json({
        id: `chatcmpl-${asked.length}`,
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: `answer ${asked.length} from ${body.model}` },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
      });
    }),
  );
});
afterEach(() => {
  asked.length = 0;
});
afterAll(() => {
  server.close();
  delete process.env.FAULTLINE_TEST_KEY;
});

const openaiSetup: ModelSetup = {
  spec: 'openai:gpt-4o-mini',
  provider: 'openai',
  api: 'openai',
  modelId: 'gpt-4o-mini',
  baseURL: BASE,
  apiKeyEnv: 'FAULTLINE_TEST_KEY',
};

async function openaiRun(fault: FaultInput, turns = 4) {
  const received: string[] = [];
  const { trajectory } = await runTrial({
    scenario: partialRefund,
    agent: () => chatAgent(turns, received),
    faultPlan: plan('model-fault', fault),
    outDir: tmpOut(),
    model: openaiSetup,
  });
  return { trajectory, received, asked: [...asked] };
}

describe('model-swap at the model', () => {
  it('sends this call and every later one to the named model on the run provider', async () => {
    const { trajectory, received, asked } = await openaiRun({
      kind: 'model-swap',
      trigger: { on: 'proposal', nth: 2 },
      model: 'gpt-4.1',
    });

    expect(asked.map((a) => a.model)).toEqual(['gpt-4o-mini', 'gpt-4.1', 'gpt-4.1', 'gpt-4.1']);
    expect(received[3]).toBe('answer 4 from gpt-4.1');
    const calls = modelCalls(trajectory);
    expect(calls.map((c) => c.modelId)).toEqual([
      'openai:gpt-4o-mini',
      'openai:gpt-4.1',
      'openai:gpt-4.1',
      'openai:gpt-4.1',
    ]);
    expect(calls.map((c) => c.fault)).toEqual([
      null,
      'model call 2: model swapped from openai:gpt-4o-mini to openai:gpt-4.1',
      null,
      null,
    ]);
    expect(trajectory.faults.fired).toEqual([
      expect.objectContaining({ kind: 'model-swap', detail: calls[1]?.fault }),
    ]);
    // The run's model is what it was given; the swap is the fault's.
    expect(trajectory.model?.id).toBe('openai:gpt-4o-mini');
  });

  it('a swap to a model the provider does not have fails that call, metered under the new id', async () => {
    const { trajectory, received } = await openaiRun({
      kind: 'model-swap',
      trigger: { on: 'proposal', nth: 2 },
      model: 'no-such-model',
    });

    expect(received).toHaveLength(1);
    const calls = modelCalls(trajectory);
    expect(calls.map((c) => [c.modelId, c.error?.class ?? null])).toEqual([
      ['openai:gpt-4o-mini', null],
      ['openai:no-such-model', 'invalid_argument'],
    ]);
    expect(trajectory.outcome.state).toBe('error');
  });

  it('swaps the system prompt too when the fault names one, from then on', async () => {
    const { asked } = await openaiRun({
      kind: 'model-swap',
      trigger: { on: 'proposal', nth: 3 },
      model: 'openai:gpt-4.1',
      prompt: 'You are a different desk.',
    });

    expect(asked.map((a) => [a.model, a.system])).toEqual([
      ['gpt-4o-mini', SYSTEM],
      ['gpt-4o-mini', SYSTEM],
      ['gpt-4.1', 'You are a different desk.'],
      ['gpt-4.1', 'You are a different desk.'],
    ]);
  });

  it('with a model object from the API, fires and says the calls still go to that object', async () => {
    const model = answeringModel();
    const { trajectory } = await chatRun(
      { kind: 'model-swap', trigger: { on: 'proposal', nth: 2 }, model: 'gpt-4.1' },
      model,
    );

    expect(model.doGenerateCalls).toHaveLength(4);
    expect(modelCalls(trajectory).map((c) => c.modelId)).toEqual(Array(4).fill('mock:desk-model'));
    expect(trajectory.faults.fired[0]?.detail).toBe(
      "model call 2: model swap to gpt-4.1 asked, but the run's model is a language model object from the API, which cannot be reopened under another id: calls still go to mock:desk-model",
    );
  });
});

describe('one owner for model faults', () => {
  /** An agent with a planner it passes through `run.decoratePlanner`, which calls `run.model`. */
  function plannerOnModel(answers: unknown[]): AgentUnderTest {
    return {
      name: 'test-planner-on-model',
      exposes: { planner: true, model: true },
      start: async (run) => {
        const model = run.model;
        if (!model || !run.decoratePlanner) throw new Error('no model or no planner hook');
        const own: Planner = {
          versions: { model: 'mock:desk-model', prompt: 'p' },
          propose: async () => {
            const { text } = await generateText({ model, prompt: 'next?', maxRetries: 0 });
            return { proposal: text };
          },
        };
        const planner = run.decoratePlanner(own);
        for (let i = 0; i < 3; i++)
          answers.push((await planner.propose({} as WorkingContext)).proposal);
        return { status: 'completed' };
      },
    };
  }

  it('a run whose agent calls its model has them fired there, never again by the planner wrapper', async () => {
    const answers: unknown[] = [];
    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: () => plannerOnModel(answers),
      faultPlan: plan('model-fault', {
        kind: 'invalid-output',
        trigger: { on: 'proposal', nth: 2 },
      }),
      outDir: tmpOut(),
      model: mockSetup(answeringModel()),
    });

    expect(trajectory.faults.fired).toHaveLength(1);
    expect(trajectory.faults.fired[0]?.detail).toMatch(/^model call 2: the reply is garbled/);
    // The planner-level garbling ({ kind: 'act', tool: 42 }) never happened: the model's cut reply did.
    expect(answers[1]).toEqual(expect.stringMatching(/^\{"turn":2,/));
    expect(answers[0]).toBe(JSON.stringify({ turn: 1, note: 'refund 25.00 now' }));
  });

  it('an agent that exposes a planner but calls no model (the scripted reference) keeps them at its planner, model or not', async () => {
    const model = answeringModel();
    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: () => new ReferenceAgent(),
      faultPlan: plan('model-fault', {
        kind: 'invalid-output',
        trigger: { on: 'proposal', nth: 2 },
      }),
      outDir: tmpOut(),
      model: mockSetup(model),
    });

    expect(trajectory.faults.fired.map((f) => f.detail)).toEqual([
      'proposal 2 is not a valid proposal',
    ]);
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(trajectory.outcome.state).toBe('completed');
  });

  it('an agent that calls no model and exposes no planner has them not applicable', async () => {
    const { trajectory } = await runTrial({
      scenario: partialRefund,
      agent: () => ({ name: 'silent', start: () => Promise.resolve({ status: 'completed' }) }),
      faultPlan: plan('model-fault', {
        kind: 'invalid-output',
        trigger: { on: 'proposal', nth: 1 },
      }),
      outDir: tmpOut(),
      model: mockSetup(answeringModel()),
    });

    expect(trajectory.faults.fired).toEqual([]);
    expect(trajectory.faults.notApplicable?.[0]?.reason).toMatch(
      /acts on the agent's planner or on the run's model/,
    );
  });
});

describe('determinism', () => {
  it('the same seed and plan give the same trajectory, model calls and faults', async () => {
    const faults: FaultInput[] = [
      { kind: 'context-compaction', trigger: { on: 'proposal', nth: 3 } },
      { kind: 'invalid-output', trigger: { on: 'proposal', nth: 4 } },
    ];
    const once = async () => {
      const received: string[] = [];
      const { trajectory } = await runTrial({
        scenario: partialRefund,
        agent: () => chatAgent(4, received),
        faultPlan: plan('model-faults', ...faults),
        outDir: tmpOut(),
        seed: 11,
        model: mockSetup(answeringModel()),
      });
      return {
        received,
        fired: trajectory.faults.fired,
        calls: modelCalls(trajectory).map((c) => ({ ...c, latencyMs: 0 })),
        times: trajectory.times.virtualMs,
      };
    };

    const [a, b] = [await once(), await once()];

    expect(a.fired).toHaveLength(2);
    expect(b).toEqual(a);
  });
});
