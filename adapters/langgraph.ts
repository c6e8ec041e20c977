import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool } from '@langchain/core/tools';
import type { ToolCall } from '@langchain/core/messages/tool';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type { AgentResult, AgentRun, AgentUnderTest } from '../scenarios/agent.js';
import { toolReply, type ToolCallErrorData } from './tool-reply.js';

export { ToolCallError, toolReply } from './tool-reply.js';
export type { ToolCallErrorCode, ToolCallErrorData, ToolReply } from './tool-reply.js';

/**
 * The run's world as LangChain tools for a `ToolNode`: one `DynamicStructuredTool` per MCP tool
 * the world lists, its input schema the world's own JSON Schema, each calling `client.callTool`
 * on the run's connection (the credential is bound to it, so no `_meta` is sent). A tool's data
 * is the tool message's content; a refusal is a tool message with `status: 'error'`, the class
 * and retry-after in its text for the model and as data in its `artifact` (a
 * {@link ToolCallErrorData}) for the agent's code — and in the checkpoint, so a resumed run
 * still knows why a call failed.
 *
 * @example
 * ```ts
 * const tools = await worldTools(run.client);
 * const graph = new StateGraph(MessagesAnnotation).addNode('tools', new ToolNode(tools)); // …
 * ```
 */
export async function worldTools(client: Client): Promise<DynamicStructuredTool[]> {
  const { tools } = await client.listTools();
  return tools.map(
    (t) =>
      new DynamicStructuredTool({
        name: t.name,
        description: t.description ?? t.name,
        schema: t.inputSchema,
        func: async (input: Record<string, unknown>, _manager, config) => {
          const reply = toolReply(
            t.name,
            await client.callTool({ name: t.name, arguments: input }),
          );
          if (reply.ok) return reply.value;
          const call = (config as { toolCall?: ToolCall } | undefined)?.toolCall;
          return new ToolMessage({
            status: 'error',
            name: t.name,
            content: reply.error.message,
            artifact: reply.error.toJSON(),
            tool_call_id: call?.id ?? '',
          });
        },
      }),
  );
}

/** The error data a world tool's refusal carries as its tool message's artifact, if any. */
export function toolErrorOf(message: unknown): ToolCallErrorData | undefined {
  if (!ToolMessage.isInstance(message) || message.status !== 'error') return undefined;
  const artifact = message.artifact as Partial<ToolCallErrorData> | undefined;
  return typeof artifact?.class === 'string' ? (artifact as ToolCallErrorData) : undefined;
}

/** How the adapter runs a compiled graph: the parts of LangGraph's `Pregel` it uses. */
export interface CompiledAgentGraph {
  invoke(input: unknown, config: GraphRunConfig): Promise<unknown>;
  getState(config: GraphRunConfig): Promise<{ readonly createdAt?: string | undefined }>;
}

/** The config every invocation gets: the run's thread, its abort signal, synchronous checkpoints. */
export interface GraphRunConfig {
  configurable: { thread_id: string };
  signal?: AbortSignal;
  durability?: 'sync';
  recursionLimit?: number;
}

/** What the graph builder is given for one incarnation. */
export interface LangGraphContext {
  run: AgentRun;
  tools: DynamicStructuredTool[];
  /** The SQLite checkpointer at `run.storePath`: compile the graph with it. */
  checkpointer: SqliteSaver;
}

export interface LangGraphAgentOptions {
  name: string;
  /** Shown beside the name in results and comparisons. */
  version?: string;
  /** Builds and compiles the graph (with `checkpointer`) for one incarnation. */
  graph: (context: LangGraphContext) => CompiledAgentGraph | Promise<CompiledAgentGraph>;
  /** The graph's input on a fresh start (a resume continues the thread instead). */
  input: (run: AgentRun) => unknown;
  /** How the run ended, read from the graph's final state (default: nothing, judged by the world). */
  result?: (state: unknown, run: AgentRun) => AgentResult;
  /** LangGraph's superstep limit for one invocation (default 25, LangGraph's own). */
  recursionLimit?: (run: AgentRun) => number;
}

/**
 * Wraps a LangGraph.js agent into an agent under test. Its checkpointer is a `SqliteSaver` at
 * the run's store path, the thread id is the run id, and checkpoints are written before each
 * next step (`durability: 'sync'`), so what a crash leaves is exactly what was saved. After a
 * crash, `resume` continues the thread from its last checkpoint (`invoke(null)`); with no
 * checkpoint yet it starts afresh. A crashed incarnation is aborted and its database closed.
 *
 * @example
 * ```ts
 * export default langGraphAgent({
 *   name: 'my-graph',
 *   graph: ({ tools, checkpointer }) => buildGraph(tools).compile({ checkpointer }),
 *   input: (run) => ({ messages: [new HumanMessage(run.objective)] }),
 * });
 * ```
 */
export function langGraphAgent(options: LangGraphAgentOptions): AgentUnderTest {
  let current: { abort: AbortController; saver: SqliteSaver } | undefined;
  const close = (saver: SqliteSaver): void => {
    if (saver.db.open) saver.db.close();
  };
  const invoke = async (run: AgentRun, resuming: boolean): Promise<AgentResult> => {
    const abort = new AbortController();
    const saver = SqliteSaver.fromConnString(run.storePath);
    current = { abort, saver };
    try {
      const tools = await worldTools(run.client);
      const graph = await options.graph({ run, tools, checkpointer: saver });
      const config: GraphRunConfig = {
        configurable: { thread_id: run.runId },
        signal: AbortSignal.any([run.signal, abort.signal]),
        durability: 'sync',
        ...(options.recursionLimit ? { recursionLimit: options.recursionLimit(run) } : {}),
      };
      // A crash before the first checkpoint leaves nothing to continue: start over.
      const saved = resuming && (await graph.getState(config)).createdAt !== undefined;
      const state = await graph.invoke(saved ? null : options.input(run), config);
      return options.result?.(state, run);
    } finally {
      close(saver);
    }
  };
  return {
    name: options.name,
    ...(options.version === undefined ? {} : { version: options.version }),
    start: (run) => invoke(run, false),
    resume: (run) => invoke(run, true),
    discard: () => {
      if (!current) return;
      current.abort.abort(new Error('the incarnation crashed'));
      close(current.saver);
    },
  };
}
