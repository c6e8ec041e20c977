import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ParentLink } from './parent-link.js';

/**
 * The child's MCP transport: JSON-RPC lines on its own stdin and stdout, to the world served by
 * the parent. A line from the parent is dispatched only once the parent's IPC mark for it has
 * arrived, so the time and operator commands sent before it are known first (see
 * `protocol.ts`); every line in and out is counted for the idle reports.
 */
export class StdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly buffer = new ReadBuffer();
  private readonly queue: JSONRPCMessage[] = [];
  private dispatched = 0;
  private marked = 0;
  private closed = false;

  constructor(
    private readonly link: ParentLink,
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {
    link.on('mcp', ({ seq }) => {
      this.marked = Math.max(this.marked, seq);
      this.flush();
    });
  }

  private readonly onData = (chunk: Buffer): void => {
    this.buffer.append(chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) break;
      this.queue.push(message);
    }
    this.flush();
  };

  start(): Promise<void> {
    this.input.on('data', this.onData);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    this.link.countMcp('out');
    // Pipes are written synchronously on POSIX, and Node buffers otherwise: no wait for drain,
    // so a send never leaves the child busy on I/O the idle report cannot see.
    this.output.write(serializeMessage(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.input.off('data', this.onData);
    this.onclose?.();
    return Promise.resolve();
  }

  private flush(): void {
    while (this.queue.length > 0 && this.dispatched < this.marked) {
      const message = this.queue.shift();
      if (!message) break;
      this.dispatched++;
      this.link.countMcp('in');
      this.onmessage?.(message);
    }
  }
}
