import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { plainAgent } from '../../examples/plain-agent.js';
import { parseBlueprint } from '../../runtime/blueprint.js';
import type { AgentRun } from '../../scenarios/agent.js';
import { VirtualClock } from '../../scenarios/virtual-clock.js';
import { RunTimers } from '../../scenarios/virtual-timers.js';

/**
 * The plain agent against a stock SDK server whose payment tool takes an `idempotency_key`
 * argument (as the contract's write tools do) and refuses the first call as transient, then
 * `notes` notes.
 */
async function payTwice(notes = 1): Promise<{
  result: unknown;
  calls: { tool: string; args: Record<string, unknown>; at: number }[];
  signal: AbortSignal;
}> {
  const clock = new VirtualClock();
  const calls: { tool: string; args: Record<string, unknown>; at: number }[] = [];
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  server.registerTool(
    'pay',
    {
      inputSchema: { amount: z.number(), idempotency_key: z.string().optional() },
      outputSchema: { paid: z.number() },
    },
    (args) => {
      calls.push({ tool: 'pay', args, at: clock.now() });
      if (calls.length === 1) {
        return {
          isError: true,
          content: [{ type: 'text', text: 'try again' }],
          _meta: { 'faultline/error': { class: 'transient', message: 'try again' } },
        };
      }
      return {
        content: [{ type: 'text', text: 'paid' }],
        structuredContent: { paid: args.amount },
      };
    },
  );
  server.registerTool('note', { inputSchema: { text: z.string() } }, (args) => {
    calls.push({ tool: 'note', args, at: clock.now() });
    return { content: [{ type: 'text', text: 'noted' }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'plain', version: '1.0.0' });
  await client.connect(clientSide);
  // Only what the plain agent reads of its run.
  const signal = new AbortController().signal;
  const run = {
    runId: 'run-1',
    input: { amount: 25 },
    blueprint: parseBlueprint({
      id: 'pay',
      version: '1',
      operations: [
        { id: 'pay-once', tool: 'pay', kind: 'write', args: { amount: { $ref: 'input.amount' } } },
        ...Array.from({ length: notes }, (_, i) => ({
          id: `tell-${i + 1}`,
          tool: 'note',
          kind: 'write' as const,
          args: { text: 'paid' },
        })),
      ],
    }),
    client,
    clock,
    signal,
  } as Partial<AgentRun> as AgentRun;
  // Its timers on the run's clock, as the engine gives every agent that keeps its own.
  const timers = new RunTimers(clock);
  const result = await timers.run(() => plainAgent.start(run));
  timers.dispose();
  await client.close();
  return { result, calls, signal };
}

describe('the plain agent', () => {
  it('sends one idempotency key per step where the tool takes one, the same on its retry', async () => {
    const { result, calls } = await payTwice();

    expect(result).toEqual({ status: 'completed' });
    expect(calls.map((c) => [c.tool, c.args])).toEqual([
      ['pay', { amount: 25, idempotency_key: 'run-1:pay-once' }],
      ['pay', { amount: 25, idempotency_key: 'run-1:pay-once' }],
      ['note', { text: 'paid' }],
    ]);
  });

  it('waits out a backoff on the run’s clock before retrying a transient refusal', async () => {
    const { calls } = await payTwice();

    expect(calls.map((c) => c.at)).toEqual([0, 500, 500]);
  });

  it('leaves no listener on the run’s signal however many calls it makes', async () => {
    // The SDK adds an abort listener to a request's signal and never removes it: past ten on the
    // run's one signal, Node prints a MaxListenersExceededWarning on the user's stderr.
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const { result, calls, signal } = await payTwice(12);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));

      expect(result).toEqual({ status: 'completed' });
      expect(calls).toHaveLength(14);
      expect(getEventListeners(signal, 'abort')).toHaveLength(0);
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
