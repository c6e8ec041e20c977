import { APPROVAL_TOOLS } from '../../runtime/protocol.js';
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AIMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { afterAll, describe, expect, it } from 'vitest';
import {
  langGraphAgent,
  toolErrorOf,
  worldTools,
  type LangGraphContext,
} from '../../adapters/langgraph.js';
import { BlueprintChatModel } from '../../examples/blueprint-chat-model.js';
import type { AgentUnderTest } from '../../scenarios/agent.js';
import { runTrial } from '../../scenarios/engine.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { plan, tmpOut } from '../support/trial-harness.js';

const out = tmpOut();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

const rateLimited = plan('order-rate-limited', {
  kind: 'rate-limit',
  trigger: { on: 'call', tool: 'get_order', nth: 1 },
  retryAfterMs: 5_000,
});

/** A tool node run once over two reads of the order: the first rate-limited, the second not. */
async function readTwice(): Promise<{ names: string[]; messages: ToolMessage[]; tools: string[] }> {
  let names: string[] = [];
  let messages: ToolMessage[] = [];
  const agent: AgentUnderTest = {
    name: 'read-twice',
    start: async (run) => {
      const tools = await worldTools(run.client);
      names = tools.map((t) => t.name);
      const node = new ToolNode(tools);
      for (const id of ['c1', 'c2']) {
        const call = {
          id,
          name: 'get_order',
          args: { order_id: 'ord_4' },
          type: 'tool_call' as const,
        };
        const result = (await node.invoke({
          messages: [new AIMessage({ content: '', tool_calls: [call] })],
        })) as { messages: ToolMessage[] };
        messages = [...messages, ...result.messages];
      }
    },
  };
  const trial = await runTrial({
    scenario: partialRefund,
    agent: () => agent,
    faultPlan: rateLimited,
    runId: 'read-twice',
    outDir: out,
  });
  // The world's tools, and beside them the approval tools every run serves.
  return {
    names,
    messages,
    tools: [...trial.trajectory.tools.map((t) => t.name), ...APPROVAL_TOOLS],
  };
}

/** The example's graph, counting the model's turns per incarnation. */
function countingGraph(turns: number[]) {
  return ({ run, tools, checkpointer }: LangGraphContext) => {
    const model = new BlueprintChatModel(run);
    const incarnation = turns.push(0) - 1;
    return new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => {
        turns[incarnation] = (turns[incarnation] ?? 0) + 1;
        return { messages: [await model.invoke(state.messages)] };
      })
      .addNode('tools', new ToolNode(tools))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile({ checkpointer });
  };
}

describe('worldTools (LangGraph)', () => {
  it('offers every world tool; a refusal is an error tool message with its class and retry-after kept', async () => {
    const { names, messages, tools } = await readTwice();
    expect(names.sort()).toEqual(tools.sort());
    const [refused, read] = messages;
    expect(refused).toMatchObject({ status: 'error', tool_call_id: 'c1', name: 'get_order' });
    expect(refused?.content).toMatch(/^rate_limited: .*retry after 5000 ms/);
    expect(toolErrorOf(refused)).toEqual({
      tool: 'get_order',
      class: 'rate_limited',
      message: refused?.content,
      retryAfterMs: 5_000,
    });
    expect(read).toMatchObject({ status: 'success', tool_call_id: 'c2' });
    expect(JSON.parse(read?.content as string)).toMatchObject({ order_id: 'ord_4' });
    expect(toolErrorOf(read)).toBeUndefined();
    expect(toolErrorOf(new HumanMessage('hello'))).toBeUndefined();
  });
});

describe('langGraphAgent', () => {
  it('checkpoints the thread (the run id) in SQLite at the run’s store path', async () => {
    const turns: number[] = [];
    const agent = langGraphAgent({
      name: 'counting',
      version: '0.0.1',
      graph: countingGraph(turns),
      input: (run) => ({ messages: [new HumanMessage(run.objective)] }),
    });
    const trial = await runTrial({
      scenario: partialRefund,
      agent: () => agent,
      runId: 'lg-store',
      outDir: out,
    });
    expect(trial.trajectory.calls).toHaveLength(3);
    const db = new Database(trial.storePath, { readonly: true });
    const threads = db.prepare('SELECT DISTINCT thread_id FROM checkpoints').pluck().all();
    db.close();
    expect(threads).toEqual(['lg-store']);
    expect(turns).toEqual([4]);
  });

  it('after a crash, stops the crashed incarnation and continues the thread in the next', async () => {
    const turns: number[] = [];
    const agent = langGraphAgent({
      name: 'counting',
      graph: countingGraph(turns),
      input: (run) => ({ messages: [new HumanMessage(run.objective)] }),
    });
    const trial = await runTrial({
      scenario: partialRefund,
      agent: () => agent,
      // The refund is applied and its reply lost: the process dies in the tool node.
      faultPlan: plan('crash', { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply' } }),
      runId: 'lg-crash',
      outDir: out,
    });
    expect(trial.trajectory.crashes).toHaveLength(1);
    // Incarnation 0: the model asked for the read and the refund, and no more once it crashed.
    // Incarnation 1: the tool node again (the refund in flight), then the message and the end.
    expect(turns).toEqual([2, 2]);
    expect(trial.trajectory.calls.map((c) => `${c.incarnation}:${c.tool}`)).toEqual([
      '0:get_order',
      '0:issue_refund',
      '1:issue_refund',
      '1:send_customer_message',
    ]);
  });

  it('starts afresh when asked to resume a thread with no checkpoint', async () => {
    const inner = langGraphAgent({
      name: 'counting',
      graph: countingGraph([]),
      input: (run) => ({ messages: [new HumanMessage(run.objective)] }),
    });
    const agent: AgentUnderTest = { name: 'resumes-first', start: (run) => inner.resume!(run) };
    const trial = await runTrial({
      scenario: partialRefund,
      agent: () => agent,
      runId: 'lg-fresh',
      outDir: out,
    });
    expect(trial.trajectory.calls.map((c) => c.tool)).toEqual([
      'get_order',
      'issue_refund',
      'send_customer_message',
    ]);
  });
});
