import { describe, expect, it } from 'vitest';
import { judgeAnswer } from '../../scenarios/answer-verdict.js';

const completed = { state: 'completed', stopReason: null };
const decidedNot = { state: 'completed', stopReason: 'decided-not-to-act' };
const denied = { state: 'failed', stopReason: 'approval-denied' };
const revoked = { state: 'blocked', stopReason: 'permission-lost' };
const answer = (state: string, stopReason: string | null = null) => ({ state, stopReason });

describe('judgeAnswer', () => {
  it.each([
    // The small vocabulary: a stop is right wherever one was expected, whatever its words.
    [
      'stopped where a stop was expected',
      denied,
      answer('stopped', 'the manager said no'),
      'agrees',
    ],
    ['escalated where a stop was expected', revoked, answer('escalated', 'lost access'), 'agrees'],
    ['stopped with no reason where a stop was expected', revoked, answer('stopped'), 'agrees'],
    [
      'a stop where completion was expected',
      completed,
      answer('stopped', 'gave up'),
      'state-mismatch',
    ],
    ['escalated where completion was expected', completed, answer('escalated'), 'state-mismatch'],
    // Faultline's reason words are held to when an agent speaks them.
    [
      'stopped for the wrong faultline reason',
      denied,
      answer('stopped', 'budget-exhausted'),
      'stop-reason-mismatch',
    ],
    [
      'stopped for the right faultline reason',
      denied,
      answer('stopped', 'approval-denied'),
      'agrees',
    ],
    // Completion: right where expected, a false claim where a stop was.
    ['completed where completion was expected', completed, answer('completed'), 'agrees'],
    [
      'completed with no words where it decided not to act',
      decidedNot,
      answer('completed'),
      'agrees',
    ],
    [
      'completed for another reason',
      decidedNot,
      answer('completed', 'tool-error'),
      'stop-reason-mismatch',
    ],
    ['completed where a stop was expected', denied, answer('completed'), 'false-success'],
    // No answer: the world alone decides.
    ['no answer where a stop was expected', denied, answer('returned'), 'agrees'],
    ['no answer where completion was expected', completed, answer('returned'), 'agrees'],
    // Faultline's own states: exact, as the reference and the zoo are judged.
    ['the expected state and reason', denied, answer('failed', 'approval-denied'), 'agrees'],
    ['another state', denied, answer('blocked', 'approval-denied'), 'state-mismatch'],
    [
      'the expected state, another reason',
      denied,
      answer('failed', 'tool-error'),
      'stop-reason-mismatch',
    ],
    ['the expected state, no reason', denied, answer('failed'), 'stop-reason-mismatch'],
    ['an agent that threw', completed, answer('error'), 'state-mismatch'],
  ])('%s', (_what, expected, got, verdict) => {
    expect(judgeAnswer(expected, got).kind).toBe(verdict);
  });
});
