import { describe, expect, it } from 'vitest';
import { toolLoopFirstMessage } from '../../scenarios/agents/tool-loop.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { oracleMove, OracleError } from './oracle.js';
import type { ProviderMessage } from './provider-server.js';

/** A conversation: the opening, then each call with the text its result came back as. */
function conversation(scenario: Scenario, ...turns: [string, unknown, string][]) {
  const messages: ProviderMessage[] = [
    {
      role: 'user',
      text: toolLoopFirstMessage({ objective: scenario.contract.objective, input: scenario.input }),
    },
  ];
  turns.forEach(([name, args, result], i) => {
    messages.push({ role: 'assistant', text: '', toolCalls: [{ id: `c${i}`, name, args }] });
    messages.push({ role: 'tool', text: result, toolCallId: `c${i}`, result });
  });
  return { messages };
}
const order = JSON.stringify({ order_id: 'ord_4', customer_id: 'cus_4', refundable_cents: 9000 });

describe('the oracle', () => {
  it('opens with the blueprint’s first call, its arguments resolved from the input', () => {
    expect(oracleMove(conversation(partialRefund))).toEqual({
      kind: 'call',
      tool: 'get_order',
      args: { order_id: 'ord_4' },
    });
  });

  it('resolves later arguments from the results in the conversation', () => {
    const move = oracleMove(
      conversation(
        partialRefund,
        ['get_order', {}, order],
        ['issue_refund', {}, JSON.stringify({ refund_id: 'r1' })],
      ),
    );
    expect(move).toEqual({
      kind: 'call',
      tool: 'send_customer_message',
      args: { customer_id: 'cus_4', template: 'refund_issued', order_id: 'ord_4' },
    });
  });

  it('resends a call that failed in a way that looks temporary, then gives up', () => {
    const timedOut = 'MCP error -32001: Request timed out';
    const failed = (n: number) =>
      conversation(
        partialRefund,
        ['get_order', {}, order],
        ...Array.from({ length: n }, (): [string, unknown, string] => [
          'issue_refund',
          {},
          timedOut,
        ]),
      );
    expect(oracleMove(failed(1))).toMatchObject({ kind: 'call', tool: 'issue_refund' });
    expect(oracleMove(failed(3))).toEqual({
      kind: 'text',
      text: `STOPPED: issue_refund failed (${timedOut})`,
    });
    const refused = conversation(partialRefund, ['get_order', {}, 'forbidden: not yours']);
    expect(oracleMove(refused)).toEqual({
      kind: 'text',
      text: 'STOPPED: get_order failed (forbidden: not yours)',
    });
  });

  it('asks for the approval the contract requires, waits, and sends the write with the token', () => {
    const full = JSON.stringify({
      order_id: 'ord_1',
      customer_id: 'cus_1',
      refundable_cents: 9000,
    });
    const change = { order_id: 'ord_1', amount_cents: 9000, reason: 'item arrived damaged' };
    expect(oracleMove(conversation(fullRefund, ['get_order', {}, full]))).toEqual({
      kind: 'call',
      tool: 'request_approval',
      args: { tool: 'issue_refund', arguments: change },
    });
    const granted = conversation(
      fullRefund,
      ['get_order', {}, full],
      ['request_approval', {}, JSON.stringify({ request_id: 'a1', status: 'pending' })],
      ['wait_for_approval', {}, JSON.stringify({ status: 'granted', approval_token: 't1' })],
    );
    expect(oracleMove(granted)).toEqual({
      kind: 'call',
      tool: 'issue_refund',
      args: { ...change, approval_token: 't1' },
    });
  });

  it('refuses a conversation whose objective no scenario has', () => {
    expect(() => oracleMove({ messages: [{ role: 'user', text: 'Objective: sing' }] })).toThrow(
      OracleError,
    );
  });
});
