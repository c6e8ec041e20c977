import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { InteractionDraft, RecordedResult, RecordedTool } from './cassette.js';
import { InteractionLog } from './interaction-log.js';

/** The fields of a JSON-RPC message this decorator reads, whichever way it travels. */
interface Wire {
  id?: string | number;
  method?: string;
  params?: { name?: unknown; arguments?: unknown; _meta?: unknown };
  result?: { tools?: unknown } & Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Decorates the *client's* side of an MCP transport so that every `tools/call` and its reply
 * are recorded, whatever code drives the client (our executor, an agent framework, a test).
 * Requests are paired with replies by JSON-RPC id; `tools/list` replies are kept as the tool
 * catalogue. Nothing is changed on the wire.
 *
 * @example
 * ```ts
 * const recorder = new RecordingTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * await client.connect(recorder);
 * await client.callTool({ name: 'notes_add', arguments: { text: 'hi' } });
 * recorder.log.interactions(); // [{ step: 1, kind: 'tool', tool: 'notes_add', … }]
 * ```
 */
export class RecordingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  /** The tools the server listed, by name, in the order first seen. */
  readonly tools = new Map<string, RecordedTool>();
  private readonly calls = new Map<string, (reply: Wire) => void>();
  private readonly listings = new Set<string>();

  constructor(
    private readonly inner: Transport,
    readonly log: InteractionLog = new InteractionLog(),
  ) {}

  /** The inner transport's session (Streamable HTTP assigns one during `initialize`). */
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Forwarded: Streamable HTTP must send the negotiated version as a header. */
  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  async start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message, extra) => {
      this.receive(message as Wire);
      this.onmessage?.(message, extra);
    };
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Wire;
    if (m.id !== undefined && m.method === 'tools/call') this.begin(String(m.id), m);
    if (m.id !== undefined && m.method === 'tools/list') this.listings.add(String(m.id));
    await this.inner.send(message, options);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  private begin(id: string, request: Wire): void {
    const fill = this.log.reserve();
    const tool = String(request.params?.name);
    const args = isRecord(request.params?.arguments) ? request.params.arguments : {};
    const meta = isRecord(request.params?._meta) ? { meta: request.params._meta } : {};
    this.calls.set(id, (reply) => {
      const outcome =
        reply.error !== undefined
          ? { error: reply.error }
          : { result: (reply.result ?? { content: [] }) as RecordedResult };
      const draft: InteractionDraft = {
        kind: 'tool',
        tool,
        arguments: structuredClone(args),
        ...meta,
        ...structuredClone(outcome),
      } as InteractionDraft;
      fill(draft);
    });
  }

  private receive(message: Wire): void {
    // Only a response (no method) answers our request; the server's own requests reuse ids.
    if (message.method !== undefined || message.id === undefined) return;
    const id = String(message.id);
    const finish = this.calls.get(id);
    if (finish) {
      this.calls.delete(id);
      finish(message);
    }
    if (this.listings.delete(id) && Array.isArray(message.result?.tools)) {
      for (const tool of message.result.tools as RecordedTool[]) {
        if (!this.tools.has(tool.name)) this.tools.set(tool.name, structuredClone(tool));
      }
    }
  }
}
