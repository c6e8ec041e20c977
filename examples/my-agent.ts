import { evaluate, resolveValue, type AgentRun, type AgentUnderTest } from '../index.js';

/**
 * A plain agent: it follows the scenario's reference plan step by step with the stock MCP
 * client it is given (no `_meta`, no faultline timers) and says how it ended.
 */
export default function createAgent(): AgentUnderTest {
  return {
    name: 'my-agent',
    version: '1.0.0',
    async start(run: AgentRun) {
      const scope: Record<string, unknown> = { input: run.input };
      for (const op of run.blueprint.operations) {
        if (op.when && !evaluate(op.when, scope)) continue;
        const args = Object.fromEntries(
          Object.entries(op.args).map(([name, value]) => [name, resolveValue(value, scope)]),
        );
        const reply = await run.client.callTool({ name: op.tool, arguments: args });
        if (reply.isError === true) return { status: 'stopped', reason: `${op.tool} failed` };
        scope[op.id] = reply.structuredContent;
      }
      return { status: 'completed' };
    },
  };
}
