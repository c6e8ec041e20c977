import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';

export interface ProposerOptions {
  /** The order the refund is proposed on (default: the run's `input.order_id`). */
  orderId?: string;
  /** Default 2500. */
  amountCents?: number;
  /** Read the order before proposing (default true). */
  read?: boolean;
}

/**
 * A shadow-aware user agent: a stock MCP client over `run.connect()` that reads the order, sends
 * the refund and the customer message, takes a refusal whose `_meta` says the write was held as
 * the proposal it is, and completes. What a model agent told "shadow mode" does.
 */
export function proposerAgent(options: ProposerOptions = {}): AgentUnderTest {
  return {
    name: 'proposer',
    version: '1',
    async start(run) {
      const client = new Client({ name: 'proposer', version: '1.0.0' });
      await client.connect(await run.connect());
      const orderId = options.orderId ?? String(run.input['order_id']);
      let customer = 'cus_4';
      if (options.read !== false) {
        const order = (await client.callTool({
          name: 'get_order',
          arguments: { order_id: orderId },
        })) as CallToolResult;
        customer = String((order.structuredContent as { customer_id?: string }).customer_id);
      }
      const held: unknown[] = [];
      for (const [name, args] of [
        [
          'issue_refund',
          { order_id: orderId, amount_cents: options.amountCents ?? 2500, reason: 'late delivery' },
        ],
        [
          'send_customer_message',
          { customer_id: customer, template: 'refund_issued', order_id: orderId },
        ],
      ] as const) {
        const r = (await client.callTool({ name, arguments: { ...args } })) as CallToolResult;
        if (r.isError === true && r._meta?.['faultline/held'] === undefined)
          return { status: 'stopped', reason: `${name} refused` };
        held.push(r._meta?.['faultline/held']);
      }
      await client.close();
      return { status: 'completed', detail: `${held.length} write(s) proposed` };
    },
  };
}
