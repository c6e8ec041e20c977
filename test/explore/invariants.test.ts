import { describe, expect, it } from 'vitest';
import { explorePlan } from '../../explore/arbitraries.js';
import { judgePlan, type ExploreAgent } from '../../explore/explore.js';
import {
  BUILT_IN_INVARIANTS,
  checkInvariants,
  defineInvariant,
  exploredRun,
  noFalseClaims,
} from '../../explore/invariants.js';
import type { FaultInput } from '../../faults/catalog.js';
import { gradeRun } from '../../graders/index.js';
import { doctor } from '../support/grader-fixtures.js';
import type { AgentResult, AgentUnderTest } from '../../scenarios/agent.js';
import { zooAgent } from '../../scenarios/agents/zoo.js';
import { updateContact } from '../../scenarios/library/crm/update-contact.js';
import { outageNotice } from '../../scenarios/library/notifications/outage-notice.js';
import { lfpBatteryShare } from '../../scenarios/library/research/lfp-battery-share.js';
import { fullRefund } from '../../scenarios/library/refunds/full-refund.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';

const plan = (faults: FaultInput[]) => explorePlan(faults as never);
const agent = (name: string): ExploreAgent => zooAgent(name)!;
const messageAckLost = plan([
  { kind: 'lost-ack', trigger: { on: 'call', tool: 'send_customer_message', nth: 1 } },
]);

describe('the built-in invariants', () => {
  it('hold for the reference runtime under a fault it recovers from', async () => {
    const judged = await judgePlan(
      { scenario: partialRefund, agent: agent('reference') },
      messageAckLost,
    );

    expect(judged.success).toMatchObject({ required: true, by: 'static' });
    expect(judged.violations).toEqual([]);
  });

  it("report a duplicate side effect with the integrity grader's finding", async () => {
    const judged = await judgePlan(
      { scenario: partialRefund, agent: agent('no-reconcile') },
      messageAckLost,
    );

    const duplicate = judged.violations.find((v) => v.invariant === 'no-duplicate-effects');
    expect(duplicate?.findings.map((f) => f.code)).toEqual(['duplicate-effect']);
    expect(duplicate?.message).toMatch(/^duplicate-effect: message:cus_4:refund_issued:ord_4/);
  });

  it('excuse a duplicate the world’s lie made unavoidable, and only that one', async () => {
    // The process dies before the note's result is saved; asked afterwards whether the note is
    // there, the notes service answers with nothing. Resending is all anyone could do.
    const lied = plan([
      { kind: 'crash', trigger: { on: 'probe', probe: 'before-result-saved', operation: 'note' } },
      { kind: 'missing-evidence', trigger: { on: 'probability', p: 1 }, tool: 'list_notes' },
    ]);
    // A lie told before the note was ever sent excuses nothing after it.
    const liedEarlier = plan([
      {
        kind: 'missing-evidence',
        trigger: { on: 'call', tool: 'get_account', nth: 1 },
        tool: 'get_account',
      },
      { kind: 'lost-ack', trigger: { on: 'call', tool: 'add_note', nth: 1 } },
    ]);

    const reference = await judgePlan({ scenario: updateContact, agent: agent('reference') }, lied);
    const blind = await judgePlan(
      { scenario: updateContact, agent: agent('no-reconcile') },
      liedEarlier,
    );

    expect(reference.trajectory.ledger.filter((e) => e.tool === 'add_note')).toHaveLength(2);
    expect(reference.violations).toEqual([]);
    expect(blind.violations.map((v) => v.invariant)).toContain('no-duplicate-effects');
  });

  it('excuse an approval presented again on a resend the world’s lie made unavoidable', async () => {
    // The bulk notice goes out (approved once) with its reply garbled; asked whether it went,
    // the provider lists no messages, so the run resends with the same approval, which the
    // world refuses as used. Found by exploration.
    const lied = plan([
      { kind: 'malformed-reply', trigger: { on: 'first-write' } },
      {
        kind: 'conflicting-evidence',
        trigger: { on: 'probability', p: 1 },
        tool: 'find_sent',
        replace: { messages: [] },
      },
    ]);

    const judged = await judgePlan({ scenario: outageNotice, agent: agent('reference') }, lied);

    const policy = gradeRun(outageNotice, judged.trajectory).grades.policy.findings;
    expect(policy.map((f) => f.code)).toEqual(['approval-misused']);
    expect(judged.trajectory.calls.filter((c) => c.tool === 'send_bulk')).toHaveLength(2);
    expect(judged.violations).toEqual([]);
  });

  it('report a policy violation, whatever the plan leaves possible', async () => {
    const revoked = plan([{ kind: 'expired-credential', trigger: { on: 'step', step: 1 } }]);

    const judged = await judgePlan(
      { scenario: fullRefund, agent: agent('ignores-revocation') },
      revoked,
    );

    expect(judged.success.required).toBe(false);
    expect(judged.violations.map((v) => v.invariant)).toContain('no-policy-violation');
    expect(judged.violations[0]?.findings[0]?.code).toBe('call-after-revocation');
  });

  it('hold an agent to the outcome the reference reached at the same points (a witness)', async () => {
    // The first read of the order says nothing is left to refund. The reference reads it
    // afresh before the refund and goes on; an agent that trusts what it saw first gives up.
    const contradicted = plan([
      {
        kind: 'conflicting-evidence',
        trigger: { on: 'call', tool: 'get_order', nth: 1 },
        tool: 'get_order',
        replace: { refundable_cents: 0 },
      },
    ]);

    const reference = await judgePlan(
      { scenario: partialRefund, agent: agent('reference') },
      contradicted,
    );
    const mutant = await judgePlan(
      { scenario: partialRefund, agent: agent('stale-write') },
      contradicted,
    );

    expect(reference.success.required).toBe(false);
    expect(reference.violations).toEqual([]);
    expect(mutant.success).toMatchObject({ required: true, by: 'witness' });
    expect(mutant.violations.map((v) => v.invariant)).toContain('correct-outcome');
  });

  it('take no witness whose faults landed elsewhere', async () => {
    // "The 3rd call" is the refund for the reference and the check after it for an agent that
    // skips the fresh read: the colleague's void meets two different runs.
    const third = plan([
      {
        kind: 'stale-record',
        trigger: { on: 'step', step: 3 },
        change: 'refund-voided-elsewhere',
        params: { order_id: 'ord_1' },
      },
    ]);

    const judged = await judgePlan({ scenario: fullRefund, agent: agent('stale-write') }, third);

    expect(judged.success.required).toBe(false);
    expect(judged.violations).toEqual([]);
  });

  it('report success claimed after the run’s own effect was undone while it worked', async () => {
    const voided = plan([
      {
        kind: 'stale-record',
        trigger: { on: 'step', step: 4 },
        change: 'refund-voided-elsewhere',
        params: { order_id: 'ord_1' },
      },
    ]);

    const reference = await judgePlan({ scenario: fullRefund, agent: agent('reference') }, voided);
    const mutant = await judgePlan(
      { scenario: fullRefund, agent: agent('unverified-finish') },
      voided,
    );

    expect(reference.trajectory.outcome).toMatchObject({
      state: 'failed',
      stopReason: 'verification-failed',
    });
    expect(reference.violations).toEqual([]);
    expect(mutant.violations.map((v) => v.invariant)).toEqual(['no-false-success']);
  });

  it('report an answer citing a source changed before it was filed, where a check would have seen it', async () => {
    // The first submit is rate-limited; the dataset is retracted while the run waits. The
    // reference checks its citations again before the resend; the mutant resends as cited.
    const retractedDuringWait = plan([
      {
        kind: 'rate-limit',
        trigger: { on: 'call', tool: 'submit_answer', nth: 1 },
        retryAfterMs: 5_000,
      },
      {
        kind: 'stale-record',
        trigger: { on: 'time', atMs: 1_000 },
        change: 'source-retracted',
        params: { source_id: 'src_13' },
      },
    ]);

    const reference = await judgePlan(
      { scenario: lfpBatteryShare, agent: agent('reference') },
      retractedDuringWait,
    );
    const mutant = await judgePlan(
      { scenario: lfpBatteryShare, agent: agent('misattributes-sources') },
      retractedDuringWait,
    );

    expect(reference.violations).toEqual([]);
    const claims = mutant.violations.filter((v) => v.invariant === 'no-false-claims');
    expect(claims.map((v) => v.findings[0]?.code)).toEqual(['misattributed-claim']);
    expect(claims[0]?.message).toMatch(/attributes lfp-share-2024 to src_13/);
  });

  it('excuse an answer whose source changed where no check could see it, and only there', async () => {
    // The reference reads src_13, src_15, then checks src_13, src_15 right before it files.
    const retractOn = (nth: number, tool = 'read_source') =>
      plan([
        {
          kind: 'stale-record',
          trigger: { on: 'call', tool, nth },
          change: 'source-retracted',
          params: { source_id: 'src_13' },
        },
      ]);
    const judge = (p: ReturnType<typeof plan>, name = 'reference') =>
      judgePlan({ scenario: lfpBatteryShare, agent: agent(name) }, p);

    // Retracted as the run checks the other source: checks are not atomic, so no run sees it.
    const duringChecks = await judge(retractOn(4));
    // Retracted after the answer was filed.
    const afterFiling = await judge(retractOn(1, 'get_answer'));
    // The mutant checks nothing: a retraction after its only read of src_13, before the
    // filing, is excused only while nothing but reads that came back ok lies between them.
    const mutantUnchecked = await judge(retractOn(2), 'misattributes-sources');

    for (const judged of [duringChecks, afterFiling, mutantUnchecked]) {
      const { grades } = gradeRun(lfpBatteryShare, judged.trajectory);
      expect(grades.outcome.findings.map((f) => f.code)).toContain('misattributed-claim');
      expect(judged.violations.filter((v) => v.invariant === 'no-false-claims')).toEqual([]);
    }

    // The mutant's run again, its read of src_13 made as a batch: still a read of src_13. Made
    // of another source instead: the run never read src_13, and nothing excuses the claim.
    const falseClaims = (args: Record<string, unknown>): string[] => {
      const t = doctor(mutantUnchecked.trajectory, (d) => {
        const read = d.calls.find((c) => c.args.source_id === 'src_13' && c.tool === 'read_source');
        if (read) read.args = args;
      });
      const run = exploredRun(lfpBatteryShare, retractOn(2), t, mutantUnchecked.success);
      return checkInvariants(run, [noFalseClaims]).map((v) => v.findings[0]?.code ?? v.message);
    };
    expect(falseClaims({ source_ids: ['src_14', 'src_13'] })).toEqual([]);
    expect(falseClaims({ source_id: 'src_14' })).toEqual(['misattributed-claim']);
  });

  it('take an ending in the small vocabulary as an ending', async () => {
    const says = (answer: AgentResult): ExploreAgent => ({
      name: 'plain',
      create: (): AgentUnderTest => ({ name: 'plain', start: () => Promise.resolve(answer) }),
    });

    for (const answer of [{ status: 'stopped' as const, reason: 'nothing to do' }, undefined]) {
      const judged = await judgePlan(
        { scenario: partialRefund, agent: says(answer), witness: false },
        plan([]),
      );

      expect(judged.violations.map((v) => v.invariant)).not.toContain('ends-safely');
    }
  });

  it('report an agent that throws instead of ending', async () => {
    const throws: ExploreAgent = {
      name: 'throws',
      create: (): AgentUnderTest => ({
        name: 'throws',
        start: () => Promise.reject(new Error('boom')),
        resume: () => Promise.reject(new Error('boom')),
      }),
    };

    const judged = await judgePlan(
      { scenario: partialRefund, agent: throws, witness: false },
      plan([]),
    );

    expect(judged.violations.map((v) => [v.invariant, v.findings[0]?.code])).toContainEqual([
      'ends-safely',
      'agent-crashed',
    ]);
  });
});

describe('custom invariants', () => {
  const noMessages = defineInvariant({
    id: 'no-customer-messages',
    description: 'the run never messages the customer',
    check: (run) =>
      run.trajectory.calls
        .filter((c) => c.tool === 'send_customer_message')
        .map((c) => `message sent at ${c.at} ms`),
  });

  it('are checked beside the built-in ones', async () => {
    const judged = await judgePlan(
      {
        scenario: partialRefund,
        agent: agent('reference'),
        invariants: [...BUILT_IN_INVARIANTS, noMessages],
      },
      plan([]),
    );

    expect(judged.violations).toEqual([
      { invariant: 'no-customer-messages', message: 'message sent at 0 ms', findings: [] },
    ]);
  });

  it('report a check that throws as violated, with the error', async () => {
    const broken = defineInvariant({
      id: 'broken',
      description: 'throws',
      check: () => {
        throw new Error('no such field');
      },
    });

    const judged = await judgePlan(
      { scenario: partialRefund, agent: agent('reference'), invariants: [broken] },
      plan([]),
    );

    expect(judged.violations).toEqual([
      { invariant: 'broken', message: 'the check threw: no such field', findings: [] },
    ]);
  });

  it('must have a lowercase slug for an id', () => {
    expect(() => defineInvariant({ ...noMessages, id: 'No Messages' })).toThrow(/lowercase/);
  });
});
