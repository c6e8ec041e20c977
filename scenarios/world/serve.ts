import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { META } from '../../runtime/protocol.js';
import { sharedSchemaValidators } from '../../runtime/schema-validators.js';
import type { ApprovalDesk, ApprovalTool } from './approval-desk.js';
import { contractInput } from './contract-arguments.js';
import { ExternalWorld } from './external-world.js';
import { clonePlain } from './plain-clone.js';
import type { ToolDefinition } from './tool-definition.js';
import type { World } from './world.js';
import { WorldError } from './world-error.js';

/** The parts of the SDK's `RequestHandlerExtra` a world reads. */
interface CallExtra {
  readonly _meta?: Record<string, unknown>;
  readonly requestId: string | number;
}

/**
 * Serves a world's tools over MCP. Successes carry `structuredContent` (checked against the
 * output schema by the SDK); refusals are `isError` results with the typed error in
 * `_meta[META.error]` and no `structuredContent`, so a client's output validation never
 * mistakes an error for a malformed reply.
 *
 * Arguments that fail the input schema never reach the world: the SDK answers them itself with
 * an `isError` result whose text starts "Input validation error" and which has no `_meta`.
 * Each tool is served with the contract's ordinary arguments it takes (`contractInput`), and,
 * given an approval desk, the approval tools are served beside the world's own.
 *
 * @example
 * ```ts
 * const server = createWorldServer(new RefundsWorld({ seed: 1, clock: new VirtualClock() }));
 * await server.connect(transport);
 * ```
 */
export function createWorldServer(
  world: World<unknown>,
  options: { credential?: string; approvals?: ApprovalDesk } = {},
): McpServer {
  const server = new McpServer(
    { name: `faultline-world-${world.name}`, version: '0.1.0' },
    { jsonSchemaValidator: sharedSchemaValidators },
  );
  if (world instanceof ExternalWorld) return serveExternal(server, world, options);
  for (const tool of world.tools()) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: contractInput(tool),
        outputSchema: tool.output,
        annotations: { readOnlyHint: tool.kind !== 'write' },
      },
      (args: Record<string, unknown>, extra: CallExtra) =>
        answer(world, tool, args, bind(extra, options.credential)),
    );
  }
  const desk = options.approvals?.tools() ?? [];
  for (const tool of desk) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { readOnlyHint: false },
      },
      (args: Record<string, unknown>) => answerDesk(tool, args),
    );
  }
  // The same list the SDK would send, with each schema converted once per process rather than
  // on every connection (every run, every restart after a crash): converting is the dearest
  // part of connecting, and a world's schemas do not change.
  const tools = world.tools();
  server.server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({
    tools: [
      ...tools.map((tool) => ({
        name: tool.name,
        title: undefined,
        description: tool.description,
        inputSchema: advertised(contractInput(tool), 'input'),
        annotations: { readOnlyHint: tool.kind !== 'write' },
        execution: { taskSupport: 'forbidden' as const },
        _meta: undefined,
        outputSchema: advertised(tool.output, 'output'),
      })),
      ...desk.map((tool) => ({
        name: tool.name,
        title: undefined,
        description: tool.description,
        inputSchema: advertised(tool.input, 'input'),
        annotations: { readOnlyHint: false },
        execution: { taskSupport: 'forbidden' as const },
        _meta: undefined,
        outputSchema: advertised(tool.output, 'output'),
      })),
    ],
  }));
  return server;
}

/**
 * An external world's server: its tools listed verbatim, as the server it stands for listed
 * them, each call answered by the world's `callExternal` (credential and fault hooks first) and
 * its result passed on as the server sent it; the approvals desk beside them as usual.
 */
function serveExternal(
  server: McpServer,
  world: ExternalWorld<unknown>,
  options: { credential?: string; approvals?: ApprovalDesk },
): McpServer {
  const desk = options.approvals?.tools() ?? [];
  const listed = world.listedTools();
  server.server.registerCapabilities({ tools: {} });
  server.server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({
    tools: [
      ...listed.map((tool) => structuredClone(tool) as ListToolsResult['tools'][number]),
      ...desk.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: advertised(tool.input, 'input'),
        annotations: { readOnlyHint: false },
        outputSchema: advertised(tool.output, 'output'),
      })),
    ],
  }));
  server.server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args = {} } = request.params;
      const deskTool = desk.find((t) => t.name === name);
      if (deskTool) {
        const parsed = deskTool.input.safeParse(args);
        if (!parsed.success)
          return refusal(
            new WorldError(
              'invalid_argument',
              `invalid arguments for ${name}: ${parsed.error.message}`,
            ),
          );
        return answerDesk(deskTool, parsed.data);
      }
      const bound = bind(
        {
          requestId: extra.requestId,
          ...(request.params._meta ? { _meta: request.params._meta } : {}),
        },
        options.credential,
      );
      try {
        // A withheld reply (null) is sent empty and dropped by the wire.
        return (
          (await world.callExternal(name, args, bound._meta, bound.requestId, extra.signal)) ?? {
            content: [],
          }
        );
      } catch (error) {
        return refusal(error);
      }
    },
  );
  return server;
}

const jsonSchemas = {
  input: new WeakMap<z.ZodType, ListToolsResult['tools'][number]['inputSchema']>(),
  output: new WeakMap<z.ZodType, ListToolsResult['tools'][number]['inputSchema']>(),
};

/**
 * A tool schema as JSON Schema, as the SDK advertises it (draft 7, input or output side),
 * converted once per process; a fresh copy each time, since the client keeps parts of what it
 * is sent by reference (an in-memory transport passes objects, not text). Copied as plain data
 * (JSON Schema is), at a fraction of what parsing its text again costs.
 */
function advertised(
  schema: z.ZodType,
  io: 'input' | 'output',
): ListToolsResult['tools'][number]['inputSchema'] {
  let json = jsonSchemas[io].get(schema);
  if (json === undefined) {
    json = JSON.parse(
      JSON.stringify(z.toJSONSchema(schema, { target: 'draft-7', io })),
    ) as ListToolsResult['tools'][number]['inputSchema'];
    jsonSchemas[io].set(schema, json);
  }
  return clonePlain(json);
}

/**
 * The connection's credential, for a call that presents none of its own: a stock MCP client
 * cannot send per-call `_meta`, so the run's credential is bound to the connection it was
 * given, as an HTTP client's `Authorization` header is. A credential in `_meta` still wins.
 */
function bind(extra: CallExtra, credential: string | undefined): CallExtra {
  if (credential === undefined || extra._meta?.[META.credential] !== undefined) return extra;
  return { ...extra, _meta: { ...extra._meta, [META.credential]: credential } };
}

function answer(
  world: World<unknown>,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  extra: CallExtra,
): CallToolResult {
  let out: Record<string, unknown>;
  try {
    out = world.callTool(tool.name, args, extra._meta, extra.requestId);
  } catch (error) {
    return refusal(error);
  }
  const result: CallToolResult = {
    content: [{ type: 'text', text: JSON.stringify(out) }],
    structuredContent: out,
  };
  if (tool.trust === 'untrusted') result._meta = { [META.trust]: 'untrusted' };
  return result;
}

/** A world's refusal as a tool result: `isError`, the typed error in `_meta`; anything else is a bug. */
function refusal(error: unknown): CallToolResult {
  if (!(error instanceof WorldError)) throw error;
  return {
    isError: true,
    content: [{ type: 'text', text: error.message }],
    _meta: { [META.error]: error.toToolError() },
  };
}

/** An approval tool's answer: its result, or its refusal as a world's refusal looks. */
async function answerDesk(
  tool: ApprovalTool,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    const out = await tool.handle(args);
    return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
  } catch (error) {
    return refusal(error);
  }
}

/** A world and an agent-side MCP client joined in memory. */
export interface WorldConnection {
  readonly client: Client;
  readonly server: McpServer;
  readonly clientTransport: InMemoryTransport;
  readonly serverTransport: InMemoryTransport;
  close(): Promise<void>;
}

/** What a connection to a world is made with. */
export interface WorldConnectionOptions {
  /** Decorates the world's side of the transport (the fault layer and wire log). */
  wrapServerTransport?: (transport: Transport) => Transport;
  /** The run's credential token, bound to this connection (calls need not send it). */
  credential?: string;
  /** Serves the approval tools beside the world's, backed by this desk. */
  approvals?: ApprovalDesk;
}

/** The client's end of a fresh connection to a world, and how to close the world's end. */
export interface WorldTransport {
  readonly transport: InMemoryTransport;
  readonly server: McpServer;
  readonly serverTransport: InMemoryTransport;
  close(): Promise<void>;
}

/**
 * Serves a world on a fresh in-memory transport pair and hands back the client's end, not yet
 * started: for an agent that brings its own MCP client (`await client.connect(transport)`).
 * Closing the world's end closes the client's too.
 *
 * @example
 * ```ts
 * const { transport, close } = await openWorldTransport(world, { credential: token });
 * const client = new Client({ name: 'mine', version: '1.0.0' });
 * await client.connect(transport);
 * ```
 */
export async function openWorldTransport(
  world: World<unknown>,
  options: WorldConnectionOptions = {},
): Promise<WorldTransport> {
  const server = createWorldServer(world, {
    ...(options.credential === undefined ? {} : { credential: options.credential }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(
    options.wrapServerTransport ? options.wrapServerTransport(serverTransport) : serverTransport,
  );
  return { transport: clientTransport, server, serverTransport, close: () => server.close() };
}

/**
 * Connects a fresh MCP client to a world over a linked in-memory transport pair: real MCP
 * framing and validation, no sockets. The server connects first so the client's initialize
 * request has someone to answer it.
 *
 * @example
 * ```ts
 * const { client, close } = await connectWorld(world);
 * const result = await client.callTool({ name: 'get_order', arguments: { order_id: 'ord_1' },
 *   _meta: { [META.credential]: token } });
 * await close();
 * ```
 */
export async function connectWorld(
  world: World<unknown>,
  options: WorldConnectionOptions = {},
): Promise<WorldConnection> {
  const opened = await openWorldTransport(world, options);
  const clientTransport = opened.transport;
  const client = new Client(
    { name: 'faultline-agent', version: '0.1.0' },
    { jsonSchemaValidator: sharedSchemaValidators },
  );
  await client.connect(clientTransport);
  return {
    client,
    server: opened.server,
    clientTransport,
    serverTransport: opened.serverTransport,
    close: async () => {
      await client.close();
      await opened.close();
    },
  };
}
