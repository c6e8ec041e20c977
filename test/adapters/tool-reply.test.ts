import { describe, expect, it } from 'vitest';
import { ToolCallError, toolReply } from '../../adapters/tool-reply.js';
import { META } from '../../runtime/protocol.js';

describe('toolReply', () => {
  it('gives a success its structured content, else its text', () => {
    expect(
      toolReply('get_order', {
        content: [{ type: 'text', text: '{"order_id":"ord_4"}' }],
        structuredContent: { order_id: 'ord_4' },
      }),
    ).toEqual({ ok: true, value: { order_id: 'ord_4' } });
    expect(
      toolReply('echo', {
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toEqual({ ok: true, value: 'one\ntwo' });
    expect(toolReply('noop', { content: [] })).toEqual({ ok: true, value: null });
  });

  it('keeps a world’s typed refusal: class, retry-after, whether a retry can help', () => {
    const reply = toolReply('send_customer_message', {
      isError: true,
      content: [{ type: 'text', text: 'slow down' }],
      _meta: {
        [META.error]: { class: 'rate_limited', message: 'slow down', retryAfterMs: 90_000 },
      },
    });
    expect(reply.ok).toBe(false);
    const error = !reply.ok ? reply.error : undefined;
    expect(error).toBeInstanceOf(ToolCallError);
    expect(error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      message: 'rate_limited: slow down (retry after 90000 ms)',
      data: { tool: 'send_customer_message', retryAfterMs: 90_000 },
    });
    expect(error?.toJSON()).toEqual({
      tool: 'send_customer_message',
      class: 'rate_limited',
      message: 'rate_limited: slow down (retry after 90000 ms)',
      retryAfterMs: 90_000,
    });
    const forbidden = toolReply('issue_refund', {
      isError: true,
      content: [],
      _meta: { [META.error]: { class: 'forbidden', message: 'needs an approval token' } },
    });
    expect(!forbidden.ok && forbidden.error.toJSON()).toEqual({
      tool: 'issue_refund',
      class: 'forbidden',
      message: 'forbidden: needs an approval token',
    });
    expect(!forbidden.ok && forbidden.error.retryable).toBe(false);
  });

  it('calls an error with no typed error (or a malformed one) untyped, with its text', () => {
    for (const meta of [undefined, { [META.error]: { class: 'oops', message: 'x' } }]) {
      const reply = toolReply('get_order', {
        isError: true,
        content: [{ type: 'text', text: 'Input validation error: order_id is required' }],
        ...(meta ? { _meta: meta } : {}),
      });
      expect(!reply.ok && reply.error).toMatchObject({
        code: 'untyped',
        retryable: false,
        message: 'Input validation error: order_id is required',
      });
    }
    const silent = toolReply('get_order', { isError: true, content: [] });
    expect(!silent.ok && silent.error.message).toBe('get_order failed');
  });
});
