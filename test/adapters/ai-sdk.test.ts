import { APPROVAL_TOOLS } from '../../runtime/protocol.js';
import { rmSync } from 'node:fs';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, describe, expect, it } from 'vitest';
import { aiSdkAgent, ToolCallError, worldTools } from '../../adapters/ai-sdk.js';
import createExampleAgent from '../../examples/ai-sdk-agent.js';
import type { AgentRun } from '../../scenarios/agent.js';
import { runTrial } from '../../scenarios/engine.js';
import { onboardHosts } from '../../scenarios/library/cmdb/onboard-hosts.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { plan, tmpOut } from '../support/trial-harness.js';

const out = tmpOut();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

type Generated = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};
/** A model that reads the order once, then says it is done. */
function readOrderOnce(args: Record<string, unknown>): MockLanguageModelV3 {
  const steps: Generated[] = [
    {
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'get_order', input: JSON.stringify(args) },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    },
    {
      content: [{ type: 'text', text: 'done' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    },
  ];
  return new MockLanguageModelV3({ doGenerate: steps });
}

const rateLimited = plan('order-rate-limited', {
  kind: 'rate-limit',
  trigger: { on: 'call', tool: 'get_order', nth: 1 },
  retryAfterMs: 5_000,
});

/** Runs partial-refund with an agent that reads the order once through `worldTools`. */
async function readOnce(
  options: { errors?: 'throw' | 'return'; args?: Record<string, unknown> } = {},
  faultPlan = rateLimited,
) {
  const model = readOrderOnce(options.args ?? { order_id: 'ord_4' });
  let result: Awaited<ReturnType<typeof generateText>> | undefined;
  let names: string[] = [];
  const agent = aiSdkAgent({
    name: 'read-once',
    ...(options.errors ? { errors: options.errors } : {}),
    start: async (_run, { tools, abortSignal }) => {
      names = Object.keys(tools);
      result = await generateText({
        model,
        tools,
        abortSignal,
        stopWhen: stepCountIs(3),
        prompt: 'go',
      });
    },
  });
  const trial = await runTrial({
    scenario: partialRefund,
    agent: () => agent,
    faultPlan,
    runId: `read-once-${options.errors ?? 'throw'}-${JSON.stringify(options.args ?? {})}`,
    outDir: out,
  });
  return { trial, model, result: result!, names };
}

describe('worldTools (AI SDK)', () => {
  it('offers every tool the world lists, and a call without _meta is the run’s own', async () => {
    const { trial, names, result } = await readOnce({}, plan('no-faults'));
    // The world's tools, and beside them the approval tools every run serves.
    expect(names.sort()).toEqual(
      [...trial.trajectory.tools.map((t) => t.name), ...APPROVAL_TOOLS].sort(),
    );
    const [call] = trial.trajectory.calls;
    expect(call).toMatchObject({ tool: 'get_order', outcome: { type: 'ok' } });
    const [toolResult] = result.steps.flatMap((s) => s.toolResults);
    expect(toolResult?.output).toMatchObject({ order_id: 'ord_4' });
  });

  it('throws a refusal as a ToolCallError the agent reads by class, and the model reads class and retry-after', async () => {
    const { result, model } = await readOnce();
    const errors = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
    expect(errors).toHaveLength(1);
    const error = errors[0]?.error;
    expect(error).toBeInstanceOf(ToolCallError);
    expect(error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      data: { tool: 'get_order', retryAfterMs: 5_000 },
    });
    const seen = model.doGenerateCalls[1]?.prompt.flatMap((m) =>
      m.role === 'tool' ? m.content : [],
    );
    const output = seen?.[0]?.type === 'tool-result' ? seen[0].output : undefined;
    expect(output?.type).toBe('error-text');
    expect(output?.type === 'error-text' && output.value).toMatch(
      /^rate_limited: .*retry after 5000 ms/,
    );
  });

  it('returns a refusal as data when asked, so the model reads it as a result', async () => {
    const { result, model } = await readOnce({ errors: 'return' });
    expect(result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error')).toEqual(
      [],
    );
    const seen = model.doGenerateCalls[1]?.prompt.flatMap((m) =>
      m.role === 'tool' ? m.content : [],
    );
    expect(seen?.[0]).toMatchObject({
      type: 'tool-result',
      output: {
        type: 'json',
        value: {
          ok: false,
          error: { tool: 'get_order', class: 'rate_limited', retryAfterMs: 5_000 },
        },
      },
    });
  });

  it('calls a reply with no typed error untyped (the SDK refusing bad arguments)', async () => {
    const { result } = await readOnce({ args: { order: 4 } }, plan('no-faults'));
    const [part] = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
    expect(part?.error).toBeInstanceOf(ToolCallError);
    expect(part?.error).toMatchObject({ code: 'untyped', retryable: false });
  });
});

describe('aiSdkAgent', () => {
  it('gets a dropped reply as its MCP client’s request timeout, in virtual time, never a hang', async () => {
    const lost = plan('order-ack-lost', {
      kind: 'lost-ack',
      trigger: { on: 'call', tool: 'get_order', nth: 1 },
    });
    const { trial, result } = await readOnce({}, lost);
    const [part] = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
    expect(String((part?.error as Error | undefined)?.message)).toMatch(/timed out/i);
    expect(trial.trajectory.outcome).toMatchObject({ state: 'returned', hung: false });
    // The SDK's 60 s default, on the run's clock (its own timers are virtual for the run).
    expect(trial.trajectory.times.virtualMs).toBeGreaterThanOrEqual(60_000);
  });

  it('adds no listener per call to the incarnation’s signal (a long run draws no warning)', async () => {
    const warnings: string[] = [];
    const warned = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', warned);
    try {
      const trial = await runTrial({
        scenario: onboardHosts,
        agent: createExampleAgent,
        runId: 'many-calls',
        outDir: out,
      });
      expect(trial.trajectory.calls.length).toBeGreaterThan(10);
      // Node emits its warnings on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', warned);
    }
    expect(warnings).toEqual([]);
  });

  it('aborts a crashed incarnation, and starts the next one anew', async () => {
    const signals: AbortSignal[] = [];
    const agent = aiSdkAgent({
      name: 'writes-then-waits',
      version: '0.0.1',
      start: async (run: AgentRun, { tools, abortSignal }) => {
        signals.push(abortSignal);
        if (signals.length > 1) return { status: 'completed' };
        await worldTools(run.client); // a second listing changes nothing
        await tools.issue_refund?.execute?.(
          { order_id: 'ord_4', amount_cents: 2500, reason: 'late delivery goodwill' },
          { toolCallId: 'c1', messages: [] },
        );
        return undefined;
      },
    });
    expect(agent).toMatchObject({ name: 'writes-then-waits', version: '0.0.1' });
    expect('resume' in agent).toBe(false);
    const trial = await runTrial({
      scenario: partialRefund,
      agent: () => agent,
      faultPlan: plan('crash', { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply' } }),
      runId: 'writes-then-waits',
      outDir: out,
    });
    expect(trial.trajectory.crashes).toHaveLength(1);
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
  });
});
