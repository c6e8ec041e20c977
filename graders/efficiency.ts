import { canonicalJson } from '../scenarios/grading.js';
import { callKey, type GradeContext } from './context.js';
import { finding, grade, type Finding, type Grade } from './grade.js';

/**
 * Trajectory efficiency, black-box: no request sent in a loop (more times in a row than the
 * contract's retry budget allows), no write sent again once the world had confirmed it.
 * Repeated reads are counted as a figure, not judged: reading afresh before a write is the
 * point of a fresh read.
 */
export function gradeEfficiency(ctx: GradeContext): Grade {
  const findings: Finding[] = [];
  const limit = ctx.scenario.contract.budgets.retries + 1;
  const streaks = new Map<string, string[]>();
  const confirmed = new Map<string, string>();
  const flagged = new Set<string>();
  let repeatedReads = 0;
  const seenReads = new Set<string>();
  for (const c of ctx.calls) {
    const key = callKey(c);
    // A retry extends the call's streak; any other call starts a new one.
    let streak = ctx.retries.has(c.callId) ? streaks.get(key) : undefined;
    if (streak === undefined) streaks.set(key, (streak = []));
    streak.push(c.callId);
    if (streak.length > limit && !flagged.has(key)) {
      flagged.add(key);
      findings.push(
        finding(
          'call-loop',
          `${c.tool} ${canonicalJson(c.args)} sent ${streak.length}+ times in a row; the retry budget allows ${limit}`,
          streak.slice(0, limit + 1).map((callId) => ({ kind: 'call' as const, callId })),
        ),
      );
    }
    if (ctx.isWrite(c)) {
      const earlier = confirmed.get(key);
      if (earlier !== undefined) {
        findings.push(
          finding('redundant-write', `${c.tool} sent again after the world confirmed it`, [
            { kind: 'call', callId: earlier },
            { kind: 'call', callId: c.callId },
          ]),
        );
      }
      if (c.outcome.type === 'ok') confirmed.set(key, c.callId);
    } else {
      if (seenReads.has(key)) repeatedReads++;
      seenReads.add(key);
    }
  }
  return grade('efficiency', findings, Math.max(1, ctx.calls.length), {
    calls: ctx.calls.length,
    distinctCalls: new Set(ctx.calls.map(callKey)).size,
    repeatedReads,
  });
}
