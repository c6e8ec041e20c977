import { expect, onTestFinished } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../../runtime/credential.js';
import {
  APPROVAL_TOKEN_META,
  META,
  toolErrorSchema,
  type ToolError,
} from '../../runtime/protocol.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { connectWorld, type WorldConnection } from '../../scenarios/world/serve.js';
import type { World } from '../../scenarios/world/world.js';
import { WorldError } from '../../scenarios/world/world-error.js';

/** A world on a virtual clock, served over MCP to a client holding a credential for run `run-1`. */
export interface WorldFixture<W extends World<unknown>> {
  readonly world: W;
  readonly clock: VirtualClock;
  /** The run's credential token. */
  readonly token: string;
  /** The agent-side client, for calls that must go without the credential. */
  readonly client: WorldConnection['client'];
  /** Calls `name` over MCP with the credential, plus any `meta`. */
  call(
    name: string,
    args: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult>;
  /** The approval token meta for `tool` with `args`, granted by `approver` against the world's identity. */
  approve(tool: string, args: Record<string, unknown>, approver: string): Record<string, string>;
}

/**
 * Builds a world on a fresh virtual clock, issues run `run-1` a credential for `scope` lasting
 * `ttlMs`, and connects a client to it; the connection closes when the current test finishes.
 * Call it inside a test.
 *
 * @example
 * ```ts
 * const f = await connectFixture((clock) => new CrmWorld({ seed: 42, clock }), {
 *   scope: { tools: ['get_account'], resources: {} },
 *   ttlMs: 3_600_000,
 * });
 * ok(await f.call('get_account', { account_id: 'acc_1' }));
 * ```
 */
export async function connectFixture<W extends World<unknown>>(
  create: (clock: VirtualClock) => W,
  options: { scope: Scope; ttlMs: number },
): Promise<WorldFixture<W>> {
  const clock = new VirtualClock();
  const world = create(clock);
  const { token } = world.credentials.issue('run-1', options.scope, options.ttlMs);
  const connection = await connectWorld(world);
  onTestFinished(() => connection.close());
  const { client } = connection;
  await client.listTools(); // the client then checks every structured result too
  return {
    world,
    clock,
    token,
    client,
    call: async (name, args, meta = {}) =>
      (await client.callTool({
        name,
        arguments: args,
        _meta: { [META.credential]: token, ...meta },
      })) as CallToolResult,
    approve: (tool, args, approver) => ({
      [APPROVAL_TOKEN_META]: world.approvals.grant({
        runId: 'run-1',
        tool,
        identity: world.approvalIdentity(tool, args)!,
        approver,
      }).token,
    }),
  };
}

/** The typed error of a refused call, failing the test if the call succeeded. */
export function errorOf(result: CallToolResult): ToolError {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return toolErrorSchema.parse(result._meta?.[META.error]);
}

/** The structured result of a successful call, failing the test if the call was refused. */
export function ok(result: CallToolResult): Record<string, unknown> {
  expect(result._meta?.[META.error]).toBeUndefined();
  expect(result.isError).toBeFalsy();
  return result.structuredContent ?? {};
}

/** The refusal a direct (non-MCP) world call throws, as the wire would carry it. */
export function refusal(act: () => unknown): ToolError {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(WorldError);
    return (error as WorldError).toToolError();
  }
  throw new Error('expected the world to refuse');
}
