// A plain agent, as a team would write one with the stock MCP client: it follows the run's plan
// step by step, retries what the world says is worth retrying, and keeps nothing on disk.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  evaluate,
  resolveValue,
  type AgentResult,
  type AgentRun,
  type AgentUnderTest,
} from '../index.js';

/** Attempts per call, the first one included. */
const ATTEMPTS = 4;
const FIRST_BACKOFF_MS = 500;
/** How long a call may take before it counts as timed out (and is retried). */
const CALL_TIMEOUT_MS = 30_000;
/** Error classes a world marks as worth another try (its typed error, in the result's `_meta`). */
const RETRYABLE = new Set(['transient', 'timeout', 'rate_limited']);

type Reply = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * Runs the plan's operations in order, each argument resolved from the input and earlier
 * results. It sends an idempotency key wherever a tool's input schema takes one, backs off and
 * retries transient failures, and stops on anything else. It asks nobody for approval and keeps
 * no state: after a crash it starts from the top.
 */
export const plainAgent: AgentUnderTest = {
  name: 'plain-agent',
  version: '1.0.0',
  async start(run: AgentRun): Promise<AgentResult> {
    // `run.client` is a connected stock SDK Client. (With `run.connect()`, a team can connect a
    // Client of its own instead: `await client.connect(await run.connect())`.)
    const { tools } = await run.client.listTools();
    const results: Record<string, unknown> = { input: run.input };
    for (const op of run.blueprint.operations) {
      if (run.signal.aborted) return { status: 'stopped', reason: 'aborted' };
      if (op.when && !evaluate(op.when, results)) continue;
      const args: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(op.args))
        args[name] = resolveValue(value, results);
      // One key per step of this run: a retry of the same step is the same request.
      if (takesKey(tools.find((t) => t.name === op.tool)))
        args.idempotency_key = `${run.runId}:${op.id}`;
      const reply = await callWithRetries(run, op.tool, args);
      if (!reply.ok) return { status: 'stopped', reason: reply.reason };
      results[op.id] = reply.value;
    }
    return { status: 'completed' };
  },
};

export default plainAgent;

function takesKey(tool: Tool | undefined): boolean {
  return tool?.inputSchema.properties?.idempotency_key !== undefined;
}

async function callWithRetries(
  run: AgentRun,
  name: string,
  args: Record<string, unknown>,
): Promise<Reply> {
  let backoff = FIRST_BACKOFF_MS;
  let reason = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    let retryAfterMs: number | undefined;
    try {
      // The SDK's own request timeout; under faultline its timer runs on the run's clock. Each
      // call gets a signal of its own that follows the run's: the SDK adds an abort listener to
      // the signal it is given and never removes it, so on the run's one signal they would pile
      // up, one a call (and Node warns past ten).
      const result = await run.client.callTool({ name, arguments: args }, undefined, {
        timeout: CALL_TIMEOUT_MS,
        signal: AbortSignal.any([run.signal]),
      });
      if (result.isError !== true) return { ok: true, value: result.structuredContent ?? null };
      const error = typedError(result._meta);
      reason = `${name}: ${error?.class ?? 'error'}: ${error?.message ?? JSON.stringify(result.content)}`;
      if (!error || !RETRYABLE.has(error.class)) return { ok: false, reason };
      retryAfterMs = error.retryAfterMs;
    } catch (error) {
      // No answer in time (or a broken connection): the call may have landed; try again.
      reason = `${name}: ${error instanceof Error ? error.message : String(error)}`;
      if (run.signal.aborted) return { ok: false, reason };
    }
    if (attempt < ATTEMPTS) await sleep(retryAfterMs ?? backoff);
    backoff *= 2;
  }
  return { ok: false, reason: `gave up after ${ATTEMPTS} attempts: ${reason}` };
}

/** The world's typed error, when it sent one (its class, and for a rate limit when to retry). */
function typedError(
  meta: Record<string, unknown> | undefined,
): { class: string; message?: string; retryAfterMs?: number } | undefined {
  const error = meta?.['faultline/error'];
  if (typeof error !== 'object' || error === null || !('class' in error)) return undefined;
  return error as { class: string; message?: string; retryAfterMs?: number };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
