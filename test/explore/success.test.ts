import { describe, expect, it } from 'vitest';
import { explorePlan } from '../../explore/arbitraries.js';
import { scenarioReach } from '../../explore/reach.js';
import { retriesToOutlast, successRequired } from '../../explore/success.js';
import type { FaultInput } from '../../faults/catalog.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { supervisedRefund } from '../../scenarios/library/refunds/supervised-refund.js';
import { defineScenario } from '../../scenarios/scenario.js';

const reach = scenarioReach(partialRefund);
const verdict = (faults: FaultInput[], on = reach) =>
  successRequired(on, explorePlan(faults as never));

/** Not required, for the reason that matches `why`. */
function notRequired(v: ReturnType<typeof verdict>, why: RegExp): void {
  expect(v.required).toBe(false);
  expect(v.reason).toMatch(why);
}

/** A write the world cannot be asked about: no key honoured, no reconcile query. */
const blindWrite = scenarioReach(
  defineScenario({
    ...partialRefund,
    id: 'refunds/blind-message',
    blueprint: {
      id: 'blind',
      version: '1',
      operations: [
        {
          id: 'notify',
          tool: 'send_customer_message',
          kind: 'write',
          args: { customer_id: 'cus_4', template: 'refund_issued', order_id: 'ord_4' },
        },
      ],
    },
  }),
);

describe('successRequired', () => {
  it('holds a plan without faults to the expected outcome', () => {
    expect(verdict([])).toMatchObject({ required: true, by: 'static' });
  });

  it('holds recoverable faults to it: lost replies of writes that can be settled, crashes, delays', () => {
    expect(
      verdict([
        { kind: 'lost-ack', trigger: { on: 'call', tool: 'issue_refund', nth: 1 } },
        { kind: 'lost-ack', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } },
        { kind: 'crash', trigger: { on: 'probe', probe: 'after-apply', operation: 'refund' } },
      ]),
    ).toMatchObject({ required: true });
    expect(
      verdict([{ kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 60_000 }]),
    ).toMatchObject({ required: true });
  });

  it('does not where a fault can take away what success needs', () => {
    for (const fault of [
      {
        kind: 'revoked-permission',
        trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
        tool: 'issue_refund',
      },
      { kind: 'approval-denied', trigger: { on: 'approval', nth: 1 } },
      { kind: 'cancellation', trigger: { on: 'step', step: 2 } },
      {
        kind: 'stale-record',
        trigger: { on: 'step', step: 2 },
        change: 'refund-elsewhere',
        params: { order_id: 'ord_4' },
      },
    ] as FaultInput[]) {
      expect(verdict([fault]), fault.kind).toMatchObject({ required: false });
    }
  });

  it('does not where a write can be left unknown and can be neither resent nor reconciled', () => {
    const lost = verdict(
      [{ kind: 'lost-ack', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } }],
      blindWrite,
    );
    const crashInFlight = verdict(
      [{ kind: 'crash', trigger: { on: 'probe', probe: 'after-intent' } }],
      blindWrite,
    );
    const crashAfterSaving = verdict(
      [{ kind: 'crash', trigger: { on: 'probe', probe: 'after-result-saved' } }],
      blindWrite,
    );

    notRequired(lost, /notify/);
    expect(crashInFlight).toMatchObject({ required: false });
    expect(crashAfterSaving).toMatchObject({ required: true });
  });

  it('does not where faults fire without bound or their recovery may not fit the budgets', () => {
    notRequired(
      verdict([{ kind: 'transient', trigger: { on: 'probability', p: 0.5 } }]),
      /without bound/,
    );
    const outages = Array.from({ length: 3 }, (_, i) => ({
      kind: 'unavailable',
      trigger: { on: 'step', step: i + 1 },
      windowMs: 120_000,
    })) as FaultInput[];
    notRequired(verdict(outages), /retries \(budget 8\)/);
    // A 1.5-second outage fits alone (3 resends: 5 writes of 6); a duplicate delivery that lets
    // one call through mid-outage starts the backoff over, so the pair may need 6 resends
    // (exploration found this on tickets/sla-queue).
    const outage = { kind: 'unavailable', trigger: { on: 'first-write' }, windowMs: 1_500 };
    expect(verdict([outage] as FaultInput[]).required).toBe(true);
    notRequired(
      verdict([
        outage,
        { kind: 'duplicate-delivery', trigger: { on: 'step', step: 9 } },
      ] as FaultInput[]),
      /8 writes \(budget 6\)/,
    );
    // Two answers 40 minutes late each, plus a delay of 2 hours: more than half of 6 hours.
    notRequired(
      verdict(
        [{ kind: 'approval-delayed', trigger: { on: 'approval', nth: 1 }, delayMs: 2 * 3_600_000 }],
        scenarioReach(supervisedRefund),
      ),
      /waiting/,
    );
  });
});

describe('retriesToOutlast', () => {
  it('counts the retries backoff needs to outlast an outage, its jitter at the shortest', () => {
    expect(retriesToOutlast(500)).toBe(2);
    // Half of 1, 2, 4, 8, 16, 32 and 60 seconds first adds up to a minute at the 7th retry.
    expect(retriesToOutlast(60_000)).toBe(8);
  });
});
