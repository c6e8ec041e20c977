import type { Clock } from '../../runtime/clock.js';
import { clonePlain } from './plain-clone.js';

/**
 * One side effect a world applied. The ledger is the world's own account of what happened, so
 * graders can tell a duplicate refund from a retried request whatever keys the agent sent: two
 * live entries with the same `identity` are a duplicate, full stop.
 */
export interface LedgerEntry {
  /** 1-based position in the ledger; compensations point back at it. */
  readonly seq: number;
  /** Virtual time (ms) at which the effect was applied. */
  readonly at: number;
  readonly runId: string | null;
  readonly tool: string;
  /** The JSON-RPC id of the request that applied it, as a string. */
  readonly requestId: string;
  /** The idempotency key the request carried, whether or not the tool honoured it. */
  readonly idempotencyKey: string | null;
  /** The effect identity the world declares for this write, e.g. `refund:ord_1:2500`. */
  readonly identity: string;
  /** What was applied, in the world's own terms. */
  readonly effect: Readonly<Record<string, unknown>>;
  /** The approval token consumed by this effect, if one was required. */
  readonly approvalToken: string | null;
  /** Seq of the entry this one undoes, for compensating writes. */
  readonly compensates: number | null;
}

/** What a world supplies when it applies an effect; the ledger stamps `seq` and `at`. */
export type NewLedgerEntry = Omit<LedgerEntry, 'seq' | 'at' | 'compensates' | 'approvalToken'> & {
  readonly approvalToken?: string | null;
  readonly compensates?: number | null;
};

/** Two or more live (uncompensated) entries with one identity. */
export interface DuplicateEffect {
  readonly identity: string;
  readonly seqs: readonly number[];
}

/** Called synchronously right after an entry is appended. */
export type AppliedListener = (entry: LedgerEntry) => void;

/**
 * Append-only record of every effect a world applied, stamped with virtual time. Listeners run
 * synchronously after each append so the engine can crash a run at the exact instant the world
 * has applied a write but not yet replied (the `after-apply` probe); a listener that throws
 * propagates to the handler that applied the effect.
 *
 * @example
 * ```ts
 * const ledger = new EffectLedger(new VirtualClock());
 * ledger.append({ runId: 'r1', tool: 'issue_refund', requestId: '1', idempotencyKey: null,
 *   identity: 'refund:ord_1:2500', effect: { refund_id: 'ref_1' } });
 * ledger.duplicates(); // []
 * ```
 */
export class EffectLedger {
  private readonly list: LedgerEntry[] = [];
  private readonly listeners = new Set<AppliedListener>();

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  append(entry: NewLedgerEntry): LedgerEntry {
    const stamped: LedgerEntry = Object.freeze({
      seq: this.list.length + 1,
      at: this.clock.now(),
      runId: entry.runId,
      tool: entry.tool,
      requestId: entry.requestId,
      idempotencyKey: entry.idempotencyKey,
      identity: entry.identity,
      effect: Object.freeze(clonePlain(entry.effect)),
      approvalToken: entry.approvalToken ?? null,
      compensates: entry.compensates ?? null,
    });
    this.list.push(stamped);
    // Copy first: a listener may unsubscribe itself while we iterate.
    for (const listener of [...this.listeners]) listener(stamped);
    return stamped;
  }

  /** How many entries there are: the next entry's seq is one more. */
  get size(): number {
    return this.list.length;
  }

  /** Every entry, oldest first (a copy; entries themselves are frozen). */
  entries(): LedgerEntry[] {
    return [...this.list];
  }

  byIdentity(identity: string): LedgerEntry[] {
    return this.list.filter((e) => e.identity === identity);
  }

  /** Seqs of entries that a later entry compensates. */
  compensated(): Set<number> {
    const undone = new Set<number>();
    for (const e of this.list) if (e.compensates !== null) undone.add(e.compensates);
    return undone;
  }

  /**
   * Identities applied more than once and not undone. A compensated entry no longer counts, so
   * a duplicate refund that was voided is not reported.
   */
  duplicates(): DuplicateEffect[] {
    const undone = this.compensated();
    const groups = new Map<string, number[]>();
    for (const e of this.list) {
      if (undone.has(e.seq)) continue;
      const seqs = groups.get(e.identity);
      if (seqs) seqs.push(e.seq);
      else groups.set(e.identity, [e.seq]);
    }
    return [...groups]
      .filter(([, seqs]) => seqs.length > 1)
      .map(([identity, seqs]) => ({ identity, seqs }));
  }

  /** Subscribes to appends; returns the unsubscribe function. */
  onApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
