import { describe, expect, it } from 'vitest';
import { idempotencyKey, perSendKey } from '../../runtime/idempotency-key.js';

describe('idempotencyKey', () => {
  it('is the same for the same run and operation', () => {
    expect(idempotencyKey('run-1', 'refund')).toBe(idempotencyKey('run-1', 'refund'));
  });

  it('has a fixed, recognisable shape', () => {
    expect(idempotencyKey('run-1', 'refund')).toMatch(/^idem_[0-9a-f]{24}$/);
  });

  it('differs across runs and across operations', () => {
    const keys = [
      idempotencyKey('run-1', 'refund'),
      idempotencyKey('run-2', 'refund'),
      idempotencyKey('run-1', 'notify'),
      idempotencyKey('run-2', 'notify'),
    ];

    expect(new Set(keys).size).toBe(4);
  });

  it('never changes for a given run and operation: a resumed run must send the same key', () => {
    // sha256 of "run-1\u0000refund", first 24 hex digits, as every faultline has derived it.
    expect(idempotencyKey('run-1', 'refund')).toBe('idem_0469e18c83ea933058baed9b');
  });

  it('does not confuse run and operation boundaries', () => {
    expect(idempotencyKey('run-1a', 'b')).not.toBe(idempotencyKey('run-1', 'ab'));
    expect(idempotencyKey('a', 'b')).not.toBe(idempotencyKey('b', 'a'));
  });
});

describe('perSendKey', () => {
  it('differs on every send of the same operation', () => {
    const keys = [1, 2, 3, 4].map((send) => perSendKey('run-1', 'refund', send));

    expect(new Set(keys).size).toBe(4);
    for (const key of keys) expect(key).toMatch(/^idem_[0-9a-f]{24}$/);
  });

  it('is deterministic for the same send and never equals the stable key', () => {
    expect(perSendKey('run-1', 'refund', 2)).toBe(perSendKey('run-1', 'refund', 2));
    expect(perSendKey('run-1', 'refund', 1)).not.toBe(idempotencyKey('run-1', 'refund'));
    expect(perSendKey('run-1', 'refund', 1)).not.toBe(perSendKey('run-2', 'refund', 1));
  });
});
