import { FaultlineError } from './errors.js';

export const WORKFLOW_STATES = [
  'created',
  'planned',
  'ready',
  'executing',
  'waiting',
  'retrying',
  'blocked',
  'completed',
  'failed',
  'cancelled',
  'compensated',
] as const;
export type WorkflowState = (typeof WORKFLOW_STATES)[number];

/** States a run never leaves. `blocked` is not terminal: a person can resume or cancel it. */
export const TERMINAL_STATES: ReadonlySet<WorkflowState> = new Set([
  'completed',
  'failed',
  'cancelled',
  'compensated',
]);

/**
 * Every legal transition. Anything absent is illegal and throws before it is persisted, so an
 * ambiguous state (say, "completed but still executing") cannot exist in the store.
 */
export const TRANSITIONS: Readonly<Record<WorkflowState, readonly WorkflowState[]>> = {
  created: ['planned', 'failed', 'cancelled'],
  planned: ['ready', 'planned', 'completed', 'failed', 'cancelled'],
  ready: ['executing', 'planned', 'waiting', 'blocked', 'completed', 'failed', 'cancelled'],
  executing: [
    'ready',
    'waiting',
    'retrying',
    'blocked',
    'planned',
    'completed',
    'failed',
    'cancelled',
  ],
  waiting: ['ready', 'executing', 'blocked', 'failed', 'cancelled'],
  // `ready`: a run resumed after a crash mid-backoff (see the runtime's resume).
  retrying: ['executing', 'ready', 'waiting', 'blocked', 'failed', 'cancelled'],
  blocked: ['ready', 'planned', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: ['compensated'],
  compensated: [],
};

export function isLegalTransition(from: WorkflowState, to: WorkflowState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Throws `illegal-transition` unless `from → to` is in {@link TRANSITIONS}. */
export function assertTransition(from: WorkflowState, to: WorkflowState): void {
  if (!isLegalTransition(from, to)) {
    throw new FaultlineError('illegal-transition', `Illegal transition ${from} → ${to}`, {
      from,
      to,
    });
  }
}

export function isTerminal(state: WorkflowState): boolean {
  return TERMINAL_STATES.has(state);
}

/**
 * Whether a run in `state` is stopped, so that a stop reason explains it: the terminal states
 * and `blocked`. A run that leaves them (a blocked run resumed) is no longer stopped, and the
 * reason goes with the stop: a resumed run that completes must not report why it once stopped.
 */
export function holdsStopReason(state: WorkflowState): boolean {
  return state === 'blocked' || TERMINAL_STATES.has(state);
}
