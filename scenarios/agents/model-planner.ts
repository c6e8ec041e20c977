import { ModelPlanner } from '../../models/model-planner.js';
import { defaultPromptFile } from '../../models/prompt-file.js';
import type { Planner } from '../../runtime/planner.js';
import type { AgentRun } from '../agent.js';
import { ReferenceAgent, type ReferenceAgentOptions } from './reference.js';

/**
 * The model planner of one incarnation: over the run's model, with its settings (the
 * `--prompt` file as system prompt, else `prompts/model-planner.md`). A run without a model
 * is refused in one line.
 */
export function modelPlannerFor(run: AgentRun): Planner {
  if (!run.model) {
    throw new Error(
      'model-planner needs a model: run it with --model PROVIDER:MODEL (or a language model through the API)',
    );
  }
  return new ModelPlanner({
    model: run.model,
    ...(run.modelSettings ? { settings: run.modelSettings } : {}),
    signal: run.signal,
  });
}

/**
 * The reference runtime with a model as its planner: the model proposes, the runtime's
 * safeguards dispose. `planning: 'objective'` hides the blueprint: the model writes the plan.
 *
 * @example
 * ```ts
 * const agent = modelPlannerAgent('model-planner', { planning: 'blueprint' });
 * ```
 */
export function modelPlannerAgent(
  name: string,
  options: ReferenceAgentOptions = {},
): ReferenceAgent {
  return new ReferenceAgent(
    name,
    {},
    {
      ...options,
      planner: modelPlannerFor,
      defaultPromptHash: defaultPromptFile('model-planner').hash,
    },
  );
}
