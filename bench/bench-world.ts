import { z } from 'zod';
import type { Clock } from '../runtime/clock.js';
import { defineTool, type ToolDefinition } from '../scenarios/world/tool-definition.js';
import { World } from '../scenarios/world/world.js';

/** The smallest world with a real write: append an entry to a journal, keyed for idempotency, and count them. */
export class JournalWorld extends World<{ entries: { id: string; payload: string }[] }> {
  readonly name = 'journal';
  private readonly catalog: readonly ToolDefinition[];

  /**
   * `onAppend` is called as each entry is appended: the one point every contender of the
   * durable-step benchmark passes once per step, so its marks time them all alike.
   */
  constructor(options: { seed: number; clock: Clock; onAppend?: () => void }) {
    super({ seed: options.seed, clock: options.clock }, { entries: [] });
    const onAppend = options.onAppend;
    this.catalog = [
      defineTool({
        name: 'append_entry',
        description: 'Append an entry to the journal.',
        kind: 'write',
        honoursIdempotencyKey: true,
        input: z.object({ id: z.string(), payload: z.string() }),
        output: z.object({ id: z.string(), position: z.number().int() }),
        handle: (args, ctx) => {
          onAppend?.();
          this.state.entries.push({ id: args.id, payload: args.payload });
          ctx.apply(`entry:${args.id}`, { id: args.id });
          return { id: args.id, position: this.state.entries.length };
        },
      }),
      defineTool({
        name: 'count_entries',
        description: 'How many entries the journal holds.',
        kind: 'read',
        input: z.object({}),
        output: z.object({ count: z.number().int() }),
        handle: () => ({ count: this.state.entries.length }),
      }),
    ];
  }

  tools(): readonly ToolDefinition[] {
    return this.catalog;
  }
}
