import type { NewRun } from '../../runtime/store.js';

/** A run as the store tests create it: a refund of ord_1, nothing used yet; `extra` overrides. */
export const newRun = (id: string, extra: Partial<NewRun> = {}): NewRun => ({
  id,
  mode: 'bounded',
  objective: 'refund order ord_1',
  contract: { version: 'c1', objective: 'refund order ord_1' },
  blueprint: { id: 'refunds', version: 'b1' },
  versions: {
    contract: 'c1',
    contractHash: 'ch',
    blueprint: 'b1',
    blueprintHash: 'bh',
    model: 'scripted',
    prompt: 'refunds@b1',
    policy: 'p1',
    toolSchemasHash: 'th',
  },
  input: { order_id: 'ord_1' },
  used: { toolCalls: 0, retries: 0, externalWrites: 0, costUsd: 0 },
  createdAt: 1_000,
  ...extra,
});
