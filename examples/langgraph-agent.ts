import { HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { langGraphAgent, toolErrorOf } from '../adapters/langgraph.js';
import { BlueprintChatModel } from './blueprint-chat-model.js';
import { stepsFor } from './blueprint-script.js';

/**
 * A LangGraph.js agent: a StateGraph of a model node and a ToolNode over the world's tools, its
 * model a fake chat model scripted from the scenario's blueprint, checkpointed to SQLite at the
 * run's store path. After a crash it resumes its thread from the last checkpoint.
 */
export default function createAgent() {
  return langGraphAgent({
    name: 'langgraph-example',
    version: '1.0.0',
    graph: ({ run, tools, checkpointer }) => {
      const model = new BlueprintChatModel(run).bindTools(tools);
      return new StateGraph(MessagesAnnotation)
        .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
        .addNode('tools', new ToolNode(tools))
        .addEdge(START, 'agent')
        .addConditionalEdges('agent', toolsCondition, ['tools', END])
        .addEdge('tools', 'agent')
        .compile({ checkpointer });
    },
    input: (run) => ({ messages: [new HumanMessage(run.objective)] }),
    // Two supersteps per tool call (model, tools), and the final answer.
    recursionLimit: (run) => 2 * stepsFor(run.blueprint) + 1,
    result: (state) => {
      const { messages } = state as typeof MessagesAnnotation.State;
      const refused = messages.map(toolErrorOf).findLast((e) => e !== undefined);
      if (!refused) return { status: 'completed' };
      return { status: 'stopped', reason: refused.class, detail: refused.message };
    },
  });
}
