import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import { EffectLedger, type NewLedgerEntry } from '../../../scenarios/world/effect-ledger.js';

const entry = (identity: string, extra: Partial<NewLedgerEntry> = {}): NewLedgerEntry => ({
  runId: 'run-1',
  tool: 'issue_refund',
  requestId: '1',
  idempotencyKey: null,
  identity,
  effect: { identity },
  ...extra,
});

describe('EffectLedger', () => {
  it('stamps 1-based seqs and the virtual time of each append', () => {
    const clock = new VirtualClock();
    const ledger = new EffectLedger(clock);

    ledger.append(entry('refund:ord_1:100'));
    clock.advanceTo(5_000);
    ledger.append(entry('refund:ord_2:100', { approvalToken: 'apr_1' }));

    expect(ledger.entries().map((e) => [e.seq, e.at, e.approvalToken, e.compensates])).toEqual([
      [1, 0, null, null],
      [2, 5_000, 'apr_1', null],
    ]);
  });

  it('hands out copies, so callers cannot rewrite history', () => {
    const ledger = new EffectLedger(new VirtualClock());
    const effect = { amount_cents: 100 };
    ledger.append(entry('refund:ord_1:100', { effect }));

    ledger.entries().pop();
    effect.amount_cents = 999;

    expect(ledger.entries()).toHaveLength(1);
    expect(ledger.entries()[0]?.effect).toEqual({ amount_cents: 100 });
    expect(Object.isFrozen(ledger.entries()[0])).toBe(true);
  });

  it('finds entries by identity', () => {
    const ledger = new EffectLedger(new VirtualClock());
    ledger.append(entry('a'));
    ledger.append(entry('b'));
    ledger.append(entry('a'));

    expect(ledger.byIdentity('a').map((e) => e.seq)).toEqual([1, 3]);
    expect(ledger.byIdentity('c')).toEqual([]);
  });

  it('reports live entries sharing an identity as duplicates', () => {
    const ledger = new EffectLedger(new VirtualClock());
    ledger.append(entry('a'));
    ledger.append(entry('b'));
    ledger.append(entry('a'));
    ledger.append(entry('a'));

    expect(ledger.duplicates()).toEqual([{ identity: 'a', seqs: [1, 3, 4] }]);
  });

  it('does not count a compensated entry towards a duplicate', () => {
    const ledger = new EffectLedger(new VirtualClock());
    ledger.append(entry('a'));
    ledger.append(entry('a'));

    ledger.append(entry('void:ref_2', { tool: 'void_refund', compensates: 2 }));

    expect(ledger.duplicates()).toEqual([]);
    expect(ledger.compensated()).toEqual(new Set([2]));
  });

  it('notifies listeners synchronously after each append until they unsubscribe', () => {
    const ledger = new EffectLedger(new VirtualClock());
    const seen: number[] = [];
    const unsubscribe = ledger.onApplied((e) => {
      seen.push(e.seq);
      expect(ledger.entries()).toHaveLength(e.seq);
    });

    ledger.append(entry('a'));
    expect(seen).toEqual([1]);
    unsubscribe();
    ledger.append(entry('b'));

    expect(seen).toEqual([1]);
  });
});
