import type { Planner, Proposal } from '../runtime/planner.js';
import type { WorkingContext } from '../runtime/working-context.js';
import { canonicalJson } from '../runtime/canonical-json.js';
import type { Cassette, ModelInteraction } from './cassette.js';
import type { InteractionLog } from './interaction-log.js';

/**
 * What a planner was asked, reduced to what must match on replay: the objective and where
 * each operation stands. Evidence and time are left out on purpose — they are the world's, and
 * a replay must not diverge because a timestamp moved.
 */
export function plannerRequest(context: WorkingContext): {
  objective: string;
  operations: [string, string][];
} {
  return {
    objective: context.objective,
    operations: context.operations.map((o) => [o.id, o.status]),
  };
}

/**
 * Wraps a planner so that every reply it gives is recorded as a `model` interaction: the
 * request it answered and the proposal it made.
 */
export function recordingPlanner(inner: Planner, log: InteractionLog): Planner {
  return {
    get versions() {
      return inner.versions;
    },
    async propose(context) {
      const answer = await inner.propose(context);
      log.add({ kind: 'model', request: plannerRequest(context), reply: answer.proposal as never });
      return answer;
    },
  };
}

/** Where a replayed planner first left the recording. */
export interface PlannerDivergence {
  step: number;
  expected: unknown;
  actual: unknown;
  message: string;
}

/**
 * A planner that answers from a cassette's model replies, in order. When the runtime asks
 * something the recording did not (the agent left the recorded path), it answers with an
 * escalation naming the first divergence — the run stops there — and never calls a model.
 */
export class ReplayPlanner implements Planner {
  readonly versions: { model: string; prompt: string };
  private readonly replies: ModelInteraction[];
  private next = 0;
  divergence: PlannerDivergence | null = null;

  constructor(cassette: Cassette) {
    this.replies = cassette.interactions.filter((i): i is ModelInteraction => i.kind === 'model');
    this.versions = { model: `replay:${cassette.recordedAt}`, prompt: 'recorded' };
  }

  /** Recorded replies not used yet. */
  remaining(): number {
    return this.replies.length - this.next;
  }

  propose(context: WorkingContext): Promise<{ proposal: unknown }> {
    const actual = plannerRequest(context);
    const step = this.next + 1;
    const recorded = this.replies[this.next];
    if (this.divergence === null) {
      if (recorded === undefined) {
        this.diverge(step, null, actual, `the recording has no model reply ${step}`);
      } else if (canonicalJson(recorded.request ?? null) !== canonicalJson(actual)) {
        this.diverge(step, recorded.request, actual, `request ${step} differs from the recording`);
      }
    }
    if (this.divergence) {
      const stop: Proposal = {
        kind: 'escalate',
        reason: `replay divergence at model step ${this.divergence.step}: ${this.divergence.message}`,
      };
      return Promise.resolve({ proposal: stop });
    }
    this.next++;
    return Promise.resolve({ proposal: recorded?.reply });
  }

  private diverge(step: number, expected: unknown, actual: unknown, message: string): void {
    this.divergence = {
      step,
      expected,
      actual,
      message: `${message}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    };
  }
}
