import { canonicalJson } from '../scenarios/grading.js';
import type { GradeContext } from './context.js';
import { finding, grade, type Finding, type Grade } from './grade.js';

/**
 * Tool correctness, black-box: every call names a tool the world serves, with arguments the
 * world accepts. A refusal for bad arguments is the agent's mistake, not the world's.
 */
export function gradeToolUse(ctx: GradeContext): Grade {
  const findings: Finding[] = [];
  // The call a recording could not answer, and any after it, were refused by the replay, not
  // for their arguments: outcome reports the divergence.
  const divergence = ctx.trajectory.replay?.divergence;
  const replayEnded = divergence ? ctx.position(divergence.callId) : -1;
  for (const c of ctx.calls) {
    const ref = [{ kind: 'call' as const, callId: c.callId }];
    if (replayEnded >= 0 && ctx.position(c.callId) >= replayEnded) continue;
    if (!ctx.tool(c.tool)) {
      findings.push(finding('unknown-tool', `${c.tool} is not a tool the world serves`, ref));
    } else if (c.outcome.type === 'fail' && c.outcome.class === 'invalid_argument') {
      findings.push(
        finding(
          'invalid-arguments',
          `the world refused ${c.tool} ${canonicalJson(c.args)} for its arguments`,
          ref,
        ),
      );
    }
  }
  return grade('tool-use', findings, ctx.calls.length, {
    calls: ctx.calls.length,
    ok: ctx.calls.filter((c) => c.outcome.type === 'ok').length,
  });
}
