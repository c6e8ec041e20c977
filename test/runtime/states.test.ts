import { describe, expect, it } from 'vitest';
import { FaultlineError } from '../../runtime/errors.js';
import {
  TERMINAL_STATES,
  TRANSITIONS,
  WORKFLOW_STATES,
  assertTransition,
  isLegalTransition,
  isTerminal,
  type WorkflowState,
} from '../../runtime/states.js';

const pairs: [WorkflowState, WorkflowState][] = WORKFLOW_STATES.flatMap((from) =>
  WORKFLOW_STATES.map((to): [WorkflowState, WorkflowState] => [from, to]),
);
const listed = (from: WorkflowState, to: WorkflowState): boolean => TRANSITIONS[from].includes(to);
const legalPairs = pairs.filter(([from, to]) => listed(from, to));
const illegalPairs = pairs.filter(([from, to]) => !listed(from, to));

describe('workflow states', () => {
  it('covers all 11 states and 121 ordered pairs', () => {
    expect(WORKFLOW_STATES).toHaveLength(11);
    expect(new Set(WORKFLOW_STATES).size).toBe(11);
    expect(pairs).toHaveLength(121);
    expect(legalPairs.length + illegalPairs.length).toBe(121);
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...WORKFLOW_STATES].sort());
  });

  it('lists only known states as targets', () => {
    for (const from of WORKFLOW_STATES) {
      for (const to of TRANSITIONS[from]) expect(WORKFLOW_STATES).toContain(to);
    }
  });

  it.each(legalPairs)('allows %s → %s', (from, to) => {
    expect(isLegalTransition(from, to)).toBe(true);
    expect(() => {
      assertTransition(from, to);
    }).not.toThrow();
  });

  it.each(illegalPairs)('refuses %s → %s with illegal-transition', (from, to) => {
    expect(isLegalTransition(from, to)).toBe(false);

    let caught: unknown;
    try {
      assertTransition(from, to);
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(FaultlineError);
    const error = caught as FaultlineError;
    expect(error.code).toBe('illegal-transition');
    expect(error.data).toEqual({ from, to });
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(from);
    expect(error.message).toContain(to);
  });

  it('marks exactly completed, failed, cancelled and compensated as terminal', () => {
    expect([...TERMINAL_STATES].sort()).toEqual([
      'cancelled',
      'compensated',
      'completed',
      'failed',
    ]);
    for (const state of WORKFLOW_STATES) expect(isTerminal(state)).toBe(TERMINAL_STATES.has(state));
    expect(isTerminal('blocked')).toBe(false);
  });

  it('lets no terminal state exit except cancelled → compensated', () => {
    const exits = pairs.filter(([from, to]) => isTerminal(from) && isLegalTransition(from, to));

    expect(exits).toEqual([['cancelled', 'compensated']]);
  });

  it('lets every non-terminal state reach failed and cancelled', () => {
    for (const state of WORKFLOW_STATES.filter((s) => !isTerminal(s))) {
      expect(isLegalTransition(state, 'failed')).toBe(true);
      expect(isLegalTransition(state, 'cancelled')).toBe(true);
    }
  });

  it('lets no state return to created', () => {
    expect(WORKFLOW_STATES.filter((s) => isLegalTransition(s, 'created'))).toEqual([]);
  });
});
