import { describe, expect, it } from 'vitest';
import { buildTimeline, orderOf, type TimelineEntry } from '../../../reports/html/timeline.js';
import { trajectoryView, type TrajectoryView } from '../../../reports/html/trajectory-view.js';
import type { Trajectory } from '../../../scenarios/trajectory.js';
import { useTrials } from '../../support/grader-fixtures.js';

const trials = useTrials();

/** A recorded run as the report reads it: through JSON, as from a trajectory file. */
async function view(scenario: string, plan: string): Promise<TrajectoryView> {
  const { trajectory } = await trials.run(scenario, plan, 'reference');
  const parsed = trajectoryView('run', JSON.parse(JSON.stringify(trajectory)) as Trajectory);
  if (!parsed) throw new Error('no trajectory');
  return parsed;
}

/** The timeline read top to bottom: block after block, each block's world lane, then its agent lane. */
function readOrder(t: TrajectoryView): TimelineEntry[] {
  return buildTimeline(t).blocks.flatMap((b) => [...b.world, ...b.agent]);
}

describe('the timeline in one instant', () => {
  it.each([
    ['refunds/full-refund', 'none'],
    ['refunds/full-refund', 'cancelled-awaiting-approval'],
    ['refunds/partial-refund', 'crash-after-apply'],
  ])("%s#%s: agent events and world calls read in the run's one order", async (scenario, plan) => {
    const t = await view(scenario, plan);
    const entries = readOrder(t);
    const orders = entries.flatMap((e) => {
      const o = orderOf(e);
      return o === undefined ? [] : [o];
    });
    // Everything but approvals (placed by the call that used them) carries its order.
    expect(orders.length).toBe(entries.filter((e) => e.kind !== 'approval').length);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    // The instant really is shared: agent events and calls at the same virtual time.
    const calls = new Set(t.calls.map((c) => c.at));
    const events = t.agentRecords.kind === 'events' ? t.agentRecords.events : [];
    expect(events.some((e) => calls.has(e.at))).toBe(true);
  });

  it("puts the agent's record of a read right after the call that made it", async () => {
    const t = await view('refunds/full-refund', 'none');
    const entries = readOrder(t);
    const read = entries.findIndex((e) => e.kind === 'call' && e.call.tool === 'get_order');
    const agentTypes = (from: readonly TimelineEntry[]): string[] =>
      from.flatMap((e) => (e.kind === 'agent-event' ? [e.event.type] : []));
    expect(agentTypes(entries.slice(read + 1))[0]).toBe('action.read');
    expect(agentTypes(entries.slice(0, read))).toEqual([
      'run.created',
      'plan.created',
      'plan.approved',
    ]);
  });

  it('keeps the lanes side by side, unordered, when the agent kept no order', async () => {
    const t = await view('refunds/full-refund', 'none');
    const events = t.agentRecords.kind === 'events' ? t.agentRecords.events : [];
    const unordered: TrajectoryView = {
      ...t,
      agentRecords: {
        kind: 'events',
        events: events.map(({ order: _order, ...e }) => e),
        evidence: t.agentRecords.kind === 'events' ? t.agentRecords.evidence : new Map(),
      },
    };
    const blocks = buildTimeline(unordered).blocks;
    expect(new Set(blocks.map((b) => `${b.at}|${b.incarnation}`)).size).toBe(blocks.length);
  });
});
