import { describe, expect, it } from 'vitest';
import {
  RUNTIME_FAILURE_CLASSES,
  TOOL_ERROR_CLASSES,
  type FailureClass,
} from '../../runtime/failure-class.js';
import { withSafeguards } from '../../runtime/safeguards.js';
import {
  RETRY_CEILING,
  backoffDelay,
  decide,
  type SupervisorInput,
} from '../../runtime/supervisor.js';

const backoff = { baseMs: 100, capMs: 2_000 };

const input = (cls: FailureClass, overrides: Partial<SupervisorInput> = {}): SupervisorInput => ({
  failure: { class: cls, message: `${cls} happened` },
  attempt: 1,
  retriesUsed: 0,
  retryBudget: 3,
  sideEffectPossible: false,
  safeguards: withSafeguards(),
  jitterSeed: 'run-1/refund',
  backoff,
  stopConditions: [],
  ...overrides,
});

const BACKOFF_CLASSES = ['transient', 'unavailable', 'timeout', 'malformed_reply'] as const;

describe('backoffDelay', () => {
  it('is deterministic for the same attempt, backoff and seed', () => {
    expect(backoffDelay(3, backoff, 'seed-a')).toBe(backoffDelay(3, backoff, 'seed-a'));
  });

  it('grows with the attempt for the same seed until the cap', () => {
    const delays = [1, 2, 3, 4, 5].map((a) => backoffDelay(a, backoff, 'seed-a'));

    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1]!);
  });

  it('stays within [50%, 100%] of the capped exponential step', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const step = Math.min(backoff.capMs, backoff.baseMs * 2 ** (attempt - 1));
      for (const seed of ['a', 'b', 'c', 'd', 'run-7/op#3', '']) {
        const delay = backoffDelay(attempt, backoff, seed);
        expect(delay).toBeGreaterThanOrEqual(step / 2);
        expect(delay).toBeLessThanOrEqual(step);
      }
    }
  });

  it('never exceeds the cap, however many attempts', () => {
    expect(backoffDelay(60, backoff, 'x')).toBeLessThanOrEqual(backoff.capMs);
    expect(backoffDelay(60, backoff, 'x')).toBe(backoffDelay(30, backoff, 'x'));
  });

  it('treats attempt 0 or below like the first attempt', () => {
    expect(backoffDelay(0, backoff, 's')).toBe(backoffDelay(1, backoff, 's'));
    expect(backoffDelay(-3, backoff, 's')).toBe(backoffDelay(1, backoff, 's'));
  });

  it('varies with the seed', () => {
    const delays = new Set(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((s) => backoffDelay(5, backoff, s)),
    );

    expect(delays.size).toBeGreaterThan(1);
  });
});

describe('decide: transient-like classes', () => {
  it.each(BACKOFF_CLASSES)(
    '%s retries with backoff seeded by run, operation and attempt',
    (cls) => {
      const decision = decide(input(cls, { attempt: 2 }));

      expect(decision).toEqual({
        kind: 'retry',
        delayMs: backoffDelay(2, backoff, 'run-1/refund#2'),
        reason: `${cls}: backing off`,
      });
    },
  );

  it.each(BACKOFF_CLASSES)('%s waits longer on later attempts, up to the cap', (cls) => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => {
      const d = decide(input(cls, { attempt }));
      return d.kind === 'retry' ? d.delayMs : -1;
    });

    for (const [i, delay] of delays.entries()) {
      const step = Math.min(backoff.capMs, backoff.baseMs * 2 ** i);
      expect(delay).toBeGreaterThanOrEqual(step / 2);
      expect(delay).toBeLessThanOrEqual(step);
    }
    expect(delays[7]).toBeGreaterThan(delays[0]!);
  });

  it('gives the same delay for the same seed and attempt', () => {
    expect(decide(input('transient', { attempt: 3 }))).toEqual(
      decide(input('transient', { attempt: 3 })),
    );
  });

  it.each(BACKOFF_CLASSES)(
    '%s stops with budget-exhausted once the retry budget is used',
    (cls) => {
      expect(decide(input(cls, { retriesUsed: 3, retryBudget: 3 }))).toMatchObject({
        kind: 'stop',
        stop: 'budget-exhausted',
      });
    },
  );

  it('keeps retrying past the retry budget when the budgets safeguard is off, until the ceiling', () => {
    const off = withSafeguards({ budgets: false });

    expect(
      decide(input('transient', { retriesUsed: 3, retryBudget: 3, safeguards: off })).kind,
    ).toBe('retry');
    expect(
      decide(input('transient', { retriesUsed: RETRY_CEILING - 1, safeguards: off })).kind,
    ).toBe('retry');
    expect(
      decide(input('transient', { retriesUsed: RETRY_CEILING, safeguards: off })),
    ).toMatchObject({
      kind: 'stop',
      stop: 'budget-exhausted',
    });
  });
});

describe('decide: rate limiting', () => {
  it('waits exactly retryAfterMs', () => {
    const decision = decide(
      input('rate_limited', {
        failure: { class: 'rate_limited', message: '429', retryAfterMs: 7_345 },
        attempt: 4,
      }),
    );

    expect(decision).toMatchObject({ kind: 'wait', delayMs: 7_345 });
  });

  it('falls back to the base delay without a retry-after', () => {
    expect(decide(input('rate_limited'))).toMatchObject({ kind: 'wait', delayMs: backoff.baseMs });
  });

  it('stops with budget-exhausted once the retry budget is used', () => {
    expect(decide(input('rate_limited', { retriesUsed: 3 }))).toMatchObject({
      kind: 'stop',
      stop: 'budget-exhausted',
    });
  });
});

describe('decide: lost permission', () => {
  it.each(['unauthenticated', 'forbidden'] as const)('%s escalates with permission-lost', (cls) => {
    expect(decide(input(cls))).toMatchObject({ kind: 'escalate', stop: 'permission-lost' });
  });

  it.each(['unauthenticated', 'forbidden'] as const)(
    '%s escalates even with retries left over or none',
    (cls) => {
      expect(decide(input(cls, { retriesUsed: 3 }))).toMatchObject({
        kind: 'escalate',
        stop: 'permission-lost',
      });
    },
  );

  it.each(['unauthenticated', 'forbidden'] as const)(
    '%s retries with backoff when revocation-stop is off',
    (cls) => {
      const off = withSafeguards({ 'revocation-stop': false });

      const decision = decide(input(cls, { safeguards: off }));

      expect(decision.kind).toBe('retry');
      const delay = decision.kind === 'retry' ? decision.delayMs : -1;
      expect(delay).toBeGreaterThanOrEqual(backoff.baseMs / 2);
      expect(delay).toBeLessThanOrEqual(backoff.baseMs);
      expect(decide(input(cls, { safeguards: off, retriesUsed: 3 }))).toMatchObject({
        kind: 'stop',
        stop: 'budget-exhausted',
      });
    },
  );
});

describe('decide: planner output', () => {
  it('regenerates invalid output when no side effect is possible', () => {
    expect(decide(input('invalid_output')).kind).toBe('regenerate');
  });

  it('escalates invalid output when a side effect may have happened', () => {
    expect(decide(input('invalid_output', { sideEffectPossible: true }))).toMatchObject({
      kind: 'escalate',
      stop: 'invalid-output',
    });
  });

  it('stops with invalid-output once retries are used up', () => {
    expect(decide(input('invalid_output', { retriesUsed: 3 }))).toMatchObject({
      kind: 'stop',
      stop: 'invalid-output',
    });
  });
});

describe('decide: other classes', () => {
  it('replans after a failed precondition', () => {
    expect(decide(input('precondition_failed')).kind).toBe('replan');
  });

  it('stops with precondition-unsatisfiable when replans keep failing past the budget', () => {
    expect(decide(input('precondition_failed', { retriesUsed: 3 }))).toMatchObject({
      kind: 'stop',
      stop: 'precondition-unsatisfiable',
    });
  });

  it('reconciles an ambiguous outcome, whatever the retries used', () => {
    expect(decide(input('ambiguous')).kind).toBe('reconcile');
    expect(decide(input('ambiguous', { retriesUsed: 99 })).kind).toBe('reconcile');
  });

  it.each<[FailureClass, string]>([
    ['policy_denied', 'policy-denied'],
    ['approval_denied', 'approval-denied'],
    ['budget_exhausted', 'budget-exhausted'],
    ['cancelled', 'cancelled'],
    ['invalid_argument', 'tool-error'],
    ['not_found', 'tool-error'],
    ['conflict', 'tool-error'],
  ])('%s stops with %s at once', (cls, stop) => {
    expect(decide(input(cls))).toMatchObject({ kind: 'stop', stop });
  });
});

describe('decide: without class-retry', () => {
  const off = withSafeguards({ 'class-retry': false });
  const ALL: FailureClass[] = [...TOOL_ERROR_CLASSES, ...RUNTIME_FAILURE_CLASSES];

  it.each(ALL)('%s retries at once with no delay', (cls) => {
    expect(decide(input(cls, { safeguards: off, attempt: 5 }))).toMatchObject({
      kind: 'retry',
      delayMs: 0,
    });
  });

  it('still stops once the retry budget is used', () => {
    expect(decide(input('forbidden', { safeguards: off, retriesUsed: 3 }))).toMatchObject({
      kind: 'stop',
      stop: 'budget-exhausted',
    });
  });
});

describe('decide: stop conditions', () => {
  it('stop at once on a listed class, overriding the usual response', () => {
    expect(decide(input('transient', { stopConditions: ['transient'] }))).toMatchObject({
      kind: 'stop',
      stop: 'tool-error',
    });
    expect(decide(input('forbidden', { stopConditions: ['forbidden'] }))).toMatchObject({
      kind: 'stop',
      stop: 'permission-lost',
    });
    expect(
      decide(input('budget_exhausted', { stopConditions: ['budget_exhausted'] })),
    ).toMatchObject({ kind: 'stop', stop: 'budget-exhausted' });
  });

  it('override even the class-retry mutant', () => {
    const off = withSafeguards({ 'class-retry': false });

    expect(decide(input('timeout', { safeguards: off, stopConditions: ['timeout'] })).kind).toBe(
      'stop',
    );
  });

  // Listing a class that already stops must not change the reason it stops with.
  it.each<[FailureClass, string]>([
    ['policy_denied', 'policy-denied'],
    ['approval_denied', 'approval-denied'],
    ['cancelled', 'cancelled'],
  ])('keep the stop reason of %s (%s) when it is listed', (cls, stop) => {
    expect(decide(input(cls, { stopConditions: [cls] }))).toMatchObject({ kind: 'stop', stop });
  });

  it('leave unlisted classes alone', () => {
    expect(decide(input('transient', { stopConditions: ['conflict'] })).kind).toBe('retry');
  });
});
