import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentResult, AgentRun, AgentUnderTest } from '../../scenarios/agent.js';

/** What the stock agent saw, for a test to check. */
export interface StockLog {
  /** Errors its client threw (an MCP request timeout above all): code, message, virtual time. */
  errors: { code: number | null; message: string; at: number }[];
  /** Approval answers it got from the approval tools. */
  approvals: Record<string, unknown>[];
  /** Refusals the world answered its writes with. */
  refusals: string[];
  /** Whether the engine closed its transport once the run was over. */
  closed: boolean;
  /** Connections it opened over `run.connect()`, and how many of them the engine closed. */
  opened: number;
  closes: number;
}

export interface StockOptions {
  /** Ask for an approval through the approval tools before the refund. */
  approve?: boolean;
  /** The refund's `idempotency_key` on each attempt (1-based); absent, none is sent. */
  key?: (attempt: number) => string;
  /** The refund's amount; absent, the whole refundable amount. */
  amountCents?: number;
  /** Sleep this long (a plain `setTimeout`) before starting. */
  sleepMs?: number;
  /** After the refund, wait on a promise nothing settles. */
  hang?: boolean;
}

/**
 * A user's agent as issue 14 pictures it: a stock MCP `Client` over `run.connect()`, no `_meta`,
 * no faultline timers, no faultline words. It refunds `input.order_id` (in full unless told; asking for an
 * approval through the approval tools when told to), resends the refund once when its client
 * gives up on it, and tells the customer.
 */
export function stockAgent(log: StockLog, options: StockOptions = {}): AgentUnderTest {
  return { name: 'stock-agent', version: '1', start: (run) => go(run, log, options) };
}

export function stockLog(): StockLog {
  return { errors: [], approvals: [], refusals: [], closed: false, opened: 0, closes: 0 };
}

async function go(run: AgentRun, log: StockLog, options: StockOptions): Promise<AgentResult> {
  if (options.sleepMs !== undefined)
    await new Promise((resolve) => setTimeout(resolve, options.sleepMs));
  const transport = await run.connect();
  const client = new Client({ name: 'stock-agent', version: '1.0.0' });
  await client.connect(transport);
  // As the AI SDK's MCP client does: list the tools first (the client then checks every reply
  // against its tool's output schema).
  await client.listTools();
  log.opened++;
  client.onclose = () => {
    log.closed = true;
    log.closes++;
  };
  const call = async (
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult | undefined> => {
    try {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    } catch (error) {
      log.errors.push({
        code: error instanceof McpError ? error.code : null,
        message: error instanceof Error ? error.message : String(error),
        at: run.clock.now(),
      });
      return undefined;
    }
  };
  const orderId = String(run.input['order_id']);
  const order = (await call('get_order', { order_id: orderId }))?.structuredContent as
    { refundable_cents: number; customer_id: string } | undefined;
  if (!order) return { status: 'stopped', reason: 'could not read the order' };
  const change = {
    order_id: orderId,
    amount_cents: options.amountCents ?? order.refundable_cents,
    reason: 'item arrived damaged',
  };
  let token: string | undefined;
  if (options.approve === true) {
    const asked = (await call('request_approval', { tool: 'issue_refund', arguments: change }))
      ?.structuredContent as { request_id: string } | undefined;
    if (!asked) return { status: 'stopped', reason: 'could not ask for an approval' };
    for (;;) {
      const answer = (await call('wait_for_approval', { request_id: asked.request_id }))
        ?.structuredContent as { status: string; approval_token?: string } | undefined;
      if (!answer) return { status: 'stopped', reason: 'lost the approval request' };
      log.approvals.push(answer);
      if (answer.status === 'pending') continue;
      token = answer.approval_token;
      break;
    }
  }
  // Denied or not, it tries: the world (and the policy grader) must refuse a write with no token.
  for (let attempt = 1; attempt <= 2; attempt++) {
    const refund = await call('issue_refund', {
      ...change,
      ...(options.key ? { idempotency_key: options.key(attempt) } : {}),
      ...(token === undefined ? {} : { approval_token: token }),
    });
    if (!refund) continue;
    if (refund.isError === true) {
      log.refusals.push(JSON.stringify(refund.content));
      return { status: 'stopped', reason: 'the refund was refused' };
    }
    break;
  }
  await call('send_customer_message', {
    customer_id: order.customer_id,
    template: 'refund_issued',
    order_id: orderId,
  });
  if (options.hang === true) await new Promise(() => undefined);
  return { status: 'completed' };
}
