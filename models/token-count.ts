/**
 * What a tokenizer gives a counter: js-tiktoken's `Tiktoken` has this shape. Injected, so this
 * module ships without a tokenizer's rank tables (a bench or a test brings one).
 */
export interface TokenEncoder {
  encode(text: string): readonly number[] | Uint32Array;
}

/** An OpenAI Chat Completions message, as far as counting needs it. */
export interface ChatMessageLike {
  readonly role: string;
  readonly content?: unknown;
  readonly name?: string;
  readonly tool_calls?: readonly {
    readonly function: { readonly name: string; readonly arguments: string };
  }[];
}

/** An OpenAI Chat Completions request body, as far as counting needs it. */
export interface ChatRequestLike {
  readonly messages: readonly ChatMessageLike[];
  readonly tools?: readonly unknown[];
}

/** Tokens OpenAI's chat format adds around each message, and to prime the reply. */
const PER_MESSAGE = 3;
const REPLY_PRIMER = 3;

/**
 * A chat request's input tokens under `encoder`, by OpenAI's published recipe for chat
 * messages (3 per message, its role, name and content, 3 to prime the reply), each tool call
 * counted as its name and JSON arguments, and the tool definitions as their JSON. Close to a
 * provider's own count, not equal to it: the point is to count what was actually sent.
 *
 * @example
 * ```ts
 * const tokens = chatRequestTokens(body, new Tiktoken(o200k_base));
 * ```
 */
export function chatRequestTokens(request: ChatRequestLike, encoder: TokenEncoder): number {
  let total = REPLY_PRIMER;
  for (const message of request.messages) {
    total += PER_MESSAGE + count(encoder, message.role);
    if (message.name !== undefined) total += 1 + count(encoder, message.name);
    total += count(encoder, contentText(message.content));
    for (const call of message.tool_calls ?? [])
      total += count(encoder, call.function.name) + count(encoder, call.function.arguments);
  }
  if (request.tools && request.tools.length > 0)
    total += count(encoder, JSON.stringify(request.tools));
  return total;
}

/** A reply's output tokens: its text and each tool call's name and JSON arguments. */
export function chatReplyTokens(
  reply: { text?: string | null; toolCalls?: readonly { name: string; arguments: string }[] },
  encoder: TokenEncoder,
): number {
  let total = count(encoder, reply.text ?? '');
  for (const call of reply.toolCalls ?? [])
    total += count(encoder, call.name) + count(encoder, call.arguments);
  return total;
}

/** A message's content as text: a string, or the text of its parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part: unknown) =>
        typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string'
          ? part.text
          : '',
      )
      .join('');
  return '';
}

function count(encoder: TokenEncoder, text: string): number {
  return text === '' ? 0 : encoder.encode(text).length;
}
