import { describe, expect, it } from 'vitest';
import { chatReplyTokens, chatRequestTokens, type TokenEncoder } from '../../models/token-count.js';

/** One token per character: the recipe's sums are then easy to check by hand. */
const chars: TokenEncoder = { encode: (text) => Array.from(text, () => 0) };

describe('chatRequestTokens', () => {
  it('counts each message as 3 + role + content, tool calls as name + arguments, tools as JSON, 3 to prime the reply', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const request = {
      messages: [
        { role: 'system', content: 'be brief' }, // 3 + 6 + 8
        { role: 'user', content: [{ type: 'text', text: 'hi' }] }, // 3 + 4 + 2
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ function: { name: 'get', arguments: '{}' } }],
        }, // 3 + 9 + 3 + 2
        { role: 'tool', content: '{"a":1}' }, // 3 + 4 + 7
      ],
      tools,
    };
    expect(chatRequestTokens(request, chars)).toBe(
      3 + (3 + 6 + 8) + (3 + 4 + 2) + (3 + 9 + 3 + 2) + (3 + 4 + 7) + JSON.stringify(tools).length,
    );
  });

  it('counts a reply as its text and its tool calls', () => {
    expect(chatReplyTokens({ text: 'done' }, chars)).toBe(4);
    expect(chatReplyTokens({ toolCalls: [{ name: 'get', arguments: '{"x":1}' }] }, chars)).toBe(10);
  });
});
