import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONSchema7, ToolSet } from 'ai';
import type { AgentResult, AgentRun, AgentUnderTest } from '../scenarios/agent.js';
import { loadAiSdk } from '../models/ai-sdk.js';
import { toolReply, type ToolCallErrorData } from './tool-reply.js';

export { ToolCallError, toolReply } from './tool-reply.js';
export type { ToolCallErrorCode, ToolCallErrorData, ToolReply } from './tool-reply.js';

/**
 * What a world tool gives the model when errors are returned rather than thrown: the data, or
 * the typed error as plain JSON (class, message, retry-after) the model reads like any result.
 */
export type WorldToolOutput =
  { ok: true; value: unknown } | { ok: false; error: ToolCallErrorData };

export interface WorldToolsOptions {
  /**
   * `throw` (the default): a refused call throws a {@link ToolCallError}; the AI SDK turns it
   * into a `tool-error` part whose `error` is that instance (the model reads its message, which
   * names the class and any retry-after). `return`: the tool returns {@link WorldToolOutput},
   * so the model reads the error as data and the step counts as a result.
   */
  errors?: 'throw' | 'return';
}

/**
 * The run's world as AI SDK tools: one `dynamicTool` per MCP tool the world lists, with the
 * world's own JSON Schema as its input schema, each calling `client.callTool` on the run's
 * connection (the credential is bound to it, so no `_meta` is sent). A tool's data is what the
 * model gets back; a refusal keeps its failure class and retry-after (see `errors`).
 *
 * @example
 * ```ts
 * const tools = await worldTools(run.client);
 * const result = await generateText({ model, tools, stopWhen: stepCountIs(10), prompt: run.objective });
 * const refused = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
 * ```
 */
export async function worldTools(
  client: Client,
  options: WorldToolsOptions = {},
): Promise<ToolSet> {
  const { tools } = await client.listTools();
  // Not imported at the top: the built-in tool-loop agent imports this module, and a start
  // that runs no model agent should not load the AI SDK (a run with a model loads it first).
  const { dynamicTool, jsonSchema } = await loadAiSdk();
  const returning = options.errors === 'return';
  return Object.fromEntries(
    tools.map((t) => [
      t.name,
      dynamicTool({
        description: t.description ?? t.name,
        inputSchema: jsonSchema(t.inputSchema as JSONSchema7),
        execute: async (input, { abortSignal }) => {
          const call = client.callTool({
            name: t.name,
            arguments: input as Record<string, unknown>,
          });
          const reply = toolReply(t.name, await untilAborted(call, abortSignal));
          if (reply.ok)
            return returning ? ({ ok: true, value: reply.value } as const) : reply.value;
          if (returning) return { ok: false, error: reply.error.toJSON() } as const;
          throw reply.error;
        },
      }),
    ]),
  );
}

/**
 * `promise`, or the signal's reason once it aborts: a reply the fault layer dropped must not
 * hold a stopped run. Not the SDK client's own `signal` option, whose listeners on the one
 * signal of an incarnation outlive their calls (Node warns past ten).
 */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  // Left behind on abort, the call still settles (its connection closes): never unhandled.
  promise.catch(() => undefined);
  signal.throwIfAborted();
  let stop: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (stop) signal.removeEventListener('abort', stop);
  }
}

/** What an AI SDK agent function is given for one incarnation, beside the run. */
export interface AiSdkAgentContext {
  /** The world's tools (see {@link worldTools}). */
  tools: ToolSet;
  /**
   * Aborted when the run's time is up or the harness crashes this incarnation: pass it to
   * `generateText` as `abortSignal`, so a crashed incarnation stops rather than running on.
   */
  abortSignal: AbortSignal;
}

export interface AiSdkAgentOptions {
  name: string;
  /** Shown beside the name in results and comparisons. */
  version?: string;
  /** One incarnation of the agent: a start, or a restart after a crash. */
  start: (run: AgentRun, context: AiSdkAgentContext) => Promise<AgentResult>;
  /**
   * Continues after a crash from what the agent kept under `run.storePath`. Without it a
   * restart is a new start (an agent with no durable state begins again from the top).
   */
  resume?: (run: AgentRun, context: AiSdkAgentContext) => Promise<AgentResult>;
  /** How tool errors reach the agent (see {@link WorldToolsOptions}). */
  errors?: 'throw' | 'return';
}

/**
 * Wraps an AI SDK agent function into an agent under test: each incarnation gets the world's
 * tools and an abort signal that fires when the run's deadline passes or the harness crashes
 * the incarnation (`discard`), so a crashed `generateText` loop stops calling tools.
 *
 * @example
 * ```ts
 * export default aiSdkAgent({
 *   name: 'my-agent',
 *   version: '1.0.0',
 *   start: async (run, { tools, abortSignal }) => {
 *     await generateText({ model, tools, abortSignal, stopWhen: stepCountIs(10), prompt: run.objective });
 *     return { status: 'completed' };
 *   },
 * });
 * ```
 */
export function aiSdkAgent(options: AiSdkAgentOptions): AgentUnderTest {
  let incarnation: AbortController | undefined;
  const run = async (
    step: NonNullable<AiSdkAgentOptions['resume']>,
    agentRun: AgentRun,
  ): Promise<AgentResult> => {
    incarnation = new AbortController();
    const abortSignal = AbortSignal.any([agentRun.signal, incarnation.signal]);
    const tools = await worldTools(
      agentRun.client,
      options.errors ? { errors: options.errors } : {},
    );
    return step(agentRun, { tools, abortSignal });
  };
  const { resume } = options;
  return {
    name: options.name,
    ...(options.version === undefined ? {} : { version: options.version }),
    start: (agentRun) => run(options.start, agentRun),
    ...(resume ? { resume: (agentRun: AgentRun) => run(resume, agentRun) } : {}),
    discard: () => {
      incarnation?.abort(new Error('the incarnation crashed'));
    },
  };
}
