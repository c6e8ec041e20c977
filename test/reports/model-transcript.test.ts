import { describe, expect, it } from 'vitest';
import { messageView, readTranscript } from '../../reports/model-transcript.js';

/** A model call as the trajectory stores it: the request as a delta on the call before. */
function call(index: number, kept: number, messages: unknown[]): Record<string, unknown> {
  return {
    index,
    incarnation: 0,
    at: 0,
    order: index,
    modelId: 'openai:gpt-test',
    request: { kept, messages, tools: [], settings: {} },
    reply: { text: `reply ${index}`, toolCalls: [], finishReason: 'stop' },
    error: null,
    usage: { inputTokens: 10, outputTokens: 2 },
    costUsd: 0,
    latencyMs: 5,
    fault: null,
  };
}
const msg = (role: string, text: string): unknown => ({ role, content: [{ type: 'text', text }] });
const model = { id: 'openai:gpt-test', promptHash: null, temperature: null, seed: null };

describe('readTranscript', () => {
  it('rebuilds each request from the chain of deltas', () => {
    const t = readTranscript({
      model,
      modelCalls: [
        call(1, 0, [msg('system', 's'), msg('user', 'a')]),
        call(2, 2, [msg('assistant', 'b'), msg('user', 'c')]),
        // A compaction: only the system message survives, then new text.
        call(3, 1, [msg('user', 'summary')]),
      ],
    });
    expect(t?.calls.map((c) => c.earlier)).toEqual([
      [],
      [msg('system', 's'), msg('user', 'a')],
      [msg('system', 's')],
    ]);
    expect(t?.model).toEqual(model);
  });

  it('counts an unreadable call and does not pretend to know what later calls kept', () => {
    const t = readTranscript({
      model,
      modelCalls: [call(1, 0, [msg('user', 'a')]), { index: 'two' }, call(3, 1, [])],
    });
    expect(t?.unreadable).toBe(1);
    expect(t?.calls.map((c) => c.index)).toEqual([1, 3]);
    expect(t?.calls[1]?.earlier).toBeNull();
  });

  it('is null for a run without a model', () => {
    expect(readTranscript({ calls: [] })).toBeNull();
    expect(readTranscript({ model: null })).toBeNull();
    expect(readTranscript(null)).toBeNull();
  });
});

describe('messageView', () => {
  it('reads text, tool calls and tool results, and keeps anything else as it is', () => {
    expect(messageView({ role: 'system', content: 'be brief' })).toEqual({
      role: 'system',
      parts: [{ kind: 'text', text: 'be brief' }],
    });
    expect(
      messageView({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'get_order',
            output: { type: 'json', value: { ok: true } },
          },
          { type: 'reasoning', text: 'hm' },
        ],
      }),
    ).toEqual({
      role: 'tool',
      parts: [
        { kind: 'tool-result', id: 'c1', name: 'get_order', output: { ok: true } },
        { kind: 'other', type: 'reasoning', value: { type: 'reasoning', text: 'hm' } },
      ],
    });
  });
});
