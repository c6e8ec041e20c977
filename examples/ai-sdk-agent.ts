import { generateText, stepCountIs } from 'ai';
import { aiSdkAgent, ToolCallError } from '../adapters/ai-sdk.js';
import { blueprintModel } from './blueprint-mock-model.js';
import { stepsFor } from './blueprint-script.js';

/**
 * An AI SDK tool-loop agent: `generateText` with the world's tools, its model the SDK's mock
 * scripted from the scenario's blueprint. It keeps nothing durable, so after a crash it starts
 * over and sends again what the world had already confirmed.
 */
export default function createAgent() {
  return aiSdkAgent({
    name: 'ai-sdk-example',
    version: '1.0.0',
    start: async (run, { tools, abortSignal }) => {
      const result = await generateText({
        model: blueprintModel(run),
        tools,
        abortSignal,
        stopWhen: stepCountIs(stepsFor(run.blueprint)),
        prompt: run.objective,
      });
      // A refusal keeps its class: the agent's code reads it, not the model's prose.
      const refused = result.steps.flatMap((s) => s.content).filter((p) => p.type === 'tool-error');
      const last = refused.at(-1);
      if (!last) return { status: 'completed', detail: result.text };
      const reason = last.error instanceof ToolCallError ? last.error.code : 'tool-error';
      return { status: 'stopped', reason, detail: result.text };
    },
  });
}
