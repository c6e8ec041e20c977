import type { AgentRun, AgentUnderTest } from 'faultline';

interface Account {
  version: number;
}

async function call(run: AgentRun, name: string, args: Record<string, unknown>): Promise<unknown> {
  const result = await run.client.callTool({ name, arguments: args });
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

/**
 * A user's own agent, written against the stock MCP client only: it reads the account, changes
 * its phone and notes why — no faultline runtime, no `_meta`, no stop-reason words.
 */
export default function myAgent(): AgentUnderTest {
  return {
    name: 'my-agent',
    version: '1.0.0',
    async start(run) {
      const accountId = String(run.input['account_id']);
      const phone = /to (.+) and note/.exec(run.objective)?.[1] ?? '';
      const account = (await call(run, 'get_account', { account_id: accountId })) as Account;
      await call(run, 'update_account', {
        account_id: accountId,
        field: 'phone',
        value: phone,
        expected_version: account.version,
      });
      await call(run, 'add_note', {
        account_id: accountId,
        text: `Main phone changed to ${phone} at the customer's request.`,
      });
      return { status: 'completed' };
    },
  };
}
