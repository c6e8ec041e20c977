import { MockLanguageModelV3 } from 'ai/test';
import type { AgentRun } from '../scenarios/agent.js';
import { nextMove, type SeenOutcome } from './blueprint-script.js';

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

/**
 * The AI SDK's mock language model, scripted from the scenario's blueprint (see
 * {@link nextMove}): each step it reads the tool results in the prompt and proposes the next
 * operation's call, or answers in text when the plan is done or a tool refused. It sees only the
 * prompt, as a real model does.
 *
 * @example
 * ```ts
 * await generateText({ model: blueprintModel(run), tools, prompt: run.objective });
 * ```
 */
export function blueprintModel(run: AgentRun): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'faultline-examples',
    modelId: `blueprint:${run.blueprint.id}@${run.blueprint.version}`,
    doGenerate: (options) => Promise.resolve(answer(run, options)),
  });
}

function answer(run: AgentRun, options: CallOptions): GenerateResult {
  const seen = seenIn(options.prompt);
  const move = nextMove(run.blueprint, run.input, seen);
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  if (move.kind === 'call') {
    return {
      content: [
        {
          type: 'tool-call',
          // Numbered by the conversation, so a replayed run proposes the same ids.
          toolCallId: `call-${seen.length + 1}`,
          toolName: move.tool,
          input: JSON.stringify(move.args),
        },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  }
  return {
    content: [{ type: 'text', text: move.text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}

/** Every tool result in the prompt, in order, as data or a refusal. */
function seenIn(prompt: CallOptions['prompt']): SeenOutcome[] {
  return prompt.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part): SeenOutcome[] => {
          if (part.type !== 'tool-result') return [];
          const { output } = part;
          switch (output.type) {
            case 'json':
            case 'text':
              return [{ ok: true, value: output.value }];
            case 'error-text':
              return [{ ok: false, error: output.value }];
            case 'error-json':
              return [{ ok: false, error: JSON.stringify(output.value) }];
            default:
              return [{ ok: false, error: output.type }];
          }
        })
      : [],
  );
}
