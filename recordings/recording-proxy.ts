import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RecordingTransport } from './recording-transport.js';

/** The fields of a JSON-RPC message the proxy reads. */
interface Wire {
  id?: string | number;
  method?: string;
  params?: { clientInfo?: unknown };
  result?: { protocolVersion?: unknown; nextCursor?: unknown };
}

/** The id prefix of the proxy's own requests, which the client never sees answered. */
const OWN_ID = 'faultline-record/';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An MCP proxy that records: messages from an MCP client (on a server-side transport, the
 * front: stdio, Streamable HTTP) go to a live server through a {@link RecordingTransport}, and
 * the live server's messages go back, unchanged both ways — requests, replies, notifications
 * (a cancellation included, so a call the client gave up on is recorded as unanswered), and
 * the server's own requests. The client's `initialize` reaches the live server as it was sent.
 *
 * Once the client has initialized, the proxy lists the live server's tools itself (its replies
 * are not passed on), so the recording holds the catalogue even when the client never asked.
 *
 * @example
 * ```ts
 * const recorder = new RecordingTransport(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * const proxy = new RecordingProxy(new StdioServerTransport(), recorder);
 * await proxy.start();
 * console.error(`session ended: ${await proxy.ended}`);
 * ```
 */
export class RecordingProxy {
  /** Resolves, with why, when either side closes (or {@link close} is called). */
  readonly ended: Promise<string>;
  private finish: (reason: string) => void = () => undefined;
  private endReason: string | undefined;
  private clientInfo: { name: string; version: string } | undefined;
  private readonly open = new Set<string>();
  private ownRequests = 0;
  private lastMessageAt = Date.now();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly front: Transport,
    private readonly live: RecordingTransport,
  ) {
    this.ended = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  /** The client's `clientInfo` from its `initialize` request, once it has come. */
  get client(): { name: string; version: string } | undefined {
    return this.clientInfo;
  }

  /** Whether the client has sent `initialize`. */
  get connected(): boolean {
    return this.clientInfo !== undefined;
  }

  /** Requests of the client not yet answered by the live server. */
  get inFlight(): number {
    return this.open.size;
  }

  /** Wall time (Date.now) of the last message from the client, for an idle limit. */
  get lastMessage(): number {
    return this.lastMessageAt;
  }

  /** Why the session ended, once it has. */
  get reason(): string | undefined {
    return this.endReason;
  }

  /** Starts the live side first (a server that cannot start fails here), then the front. */
  async start(): Promise<void> {
    this.live.onmessage = (message) => {
      this.fromLive(message);
    };
    this.live.onclose = () => {
      this.end('the live server closed the connection');
    };
    this.live.onerror = () => undefined;
    await this.live.start();
    this.front.onmessage = (message) => {
      this.fromClient(message);
    };
    this.front.onclose = () => {
      this.end('the client closed the session');
    };
    this.front.onerror = () => undefined;
    await this.front.start();
  }

  /**
   * Ends the session (if not yet ended) and closes both sides; calls still open are recorded
   * unanswered. Every call waits for the same close: a spawned live server has exited (or been
   * stopped) when it resolves.
   */
  close(reason = 'the proxy stopped'): Promise<void> {
    this.end(reason);
    this.closing ??= Promise.allSettled([this.live.close(), this.front.close()]).then(
      () => undefined,
    );
    return this.closing;
  }

  private end(reason: string): void {
    if (this.endReason !== undefined) return;
    this.endReason = reason;
    this.finish(reason);
  }

  private fromClient(message: JSONRPCMessage): void {
    this.lastMessageAt = Date.now();
    const m = message as Wire;
    if (m.method === 'initialize' && isRecord(m.params?.clientInfo)) {
      const info = m.params.clientInfo;
      this.clientInfo = {
        name: typeof info.name === 'string' && info.name !== '' ? info.name : 'mcp-client',
        version: typeof info.version === 'string' ? info.version : '',
      };
    }
    if (m.method !== undefined && m.id !== undefined) this.open.add(String(m.id));
    this.toLive(message);
    if (m.method === 'notifications/initialized') this.listTools(undefined);
  }

  private fromLive(message: JSONRPCMessage): void {
    const m = message as Wire;
    const id = m.id === undefined ? undefined : String(m.id);
    if (m.method === undefined && id !== undefined) {
      if (id.startsWith(OWN_ID)) {
        const cursor = m.result?.nextCursor;
        if (typeof cursor === 'string') this.listTools(cursor);
        return;
      }
      this.open.delete(id);
      // A Streamable HTTP client must send the negotiated version on every later request.
      if (typeof m.result?.protocolVersion === 'string')
        this.live.setProtocolVersion(m.result.protocolVersion);
    }
    this.front.send(message).catch(() => {
      // The client is gone; its close ends the session.
    });
  }

  /** The proxy's own `tools/list`: the recorder keeps every page as the catalogue. */
  private listTools(cursor: string | undefined): void {
    this.ownRequests += 1;
    this.toLive({
      jsonrpc: '2.0',
      id: `${OWN_ID}${this.ownRequests}`,
      method: 'tools/list',
      params: cursor === undefined ? {} : { cursor },
    });
  }

  private toLive(message: JSONRPCMessage): void {
    this.live.send(message).catch(() => {
      this.end('the live server could not be reached');
    });
  }
}
