import {
  BaseChatModel,
  type BaseChatModelCallOptions,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { AgentRun } from '../scenarios/agent.js';
import { nextMove, type SeenOutcome } from './blueprint-script.js';

/**
 * A fake chat model for LangGraph, scripted from the scenario's blueprint (see
 * {@link nextMove}): each turn it reads the tool messages in its conversation and asks for the
 * next operation's tool call, or answers in text when the plan is done or a tool refused. Its
 * conversation is the graph's state, so a graph resumed from its checkpoint goes on where the
 * checkpoint left it.
 *
 * @example
 * ```ts
 * const model = new BlueprintChatModel(run).bindTools(tools);
 * ```
 */
export class BlueprintChatModel extends BaseChatModel {
  constructor(private readonly run: AgentRun) {
    super({});
  }

  _llmType(): string {
    return 'faultline-blueprint';
  }

  /** The script already knows its tools; binding them changes nothing. */
  override bindTools(_tools: readonly unknown[]): this {
    return this;
  }

  _generate(
    messages: BaseMessage[],
    _options: this['ParsedCallOptions'] & BaseChatModelCallOptions,
  ): Promise<ChatResult> {
    const seen = messages.filter((m) => ToolMessage.isInstance(m)).map(outcomeOf);
    const move = nextMove(this.run.blueprint, this.run.input, seen);
    const message =
      move.kind === 'call'
        ? new AIMessage({
            content: '',
            // Numbered by the conversation, so a resumed graph proposes the same ids.
            tool_calls: [
              {
                id: `call-${seen.length + 1}`,
                name: move.tool,
                args: move.args,
                type: 'tool_call',
              },
            ],
          })
        : new AIMessage(move.text);
    return Promise.resolve({
      generations: [{ text: move.kind === 'call' ? '' : move.text, message }],
    });
  }
}

function outcomeOf(message: ToolMessage): SeenOutcome {
  const text =
    typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  if (message.status === 'error') return { ok: false, error: text };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: true, value: text };
  }
}
