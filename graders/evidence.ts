import type { GradeContext } from './context.js';
import { finding, grade, type Finding, type Grade } from './grade.js';

/**
 * Evidence: what the contract requires is present — black-box, a call of the operation's
 * tool the world answered — and, white-box, kept as an evidence record that some decision or
 * claim of the run cites (an approval request, an action's intent, the finish). A write held in
 * shadow mode (a proposal) must come after answered reads of what its blueprint operation checks
 * before it is sent (its preconditions' reads) and of the contract's required evidence.
 */
export function gradeEvidence(ctx: GradeContext): Grade {
  const required = ctx.scenario.contract.evidenceRequired;
  const operations = new Map(ctx.scenario.blueprint.operations.map((o) => [o.id, o]));
  const findings: Finding[] = [];
  let linked = 0;
  for (const e of required) {
    const op = operations.get(e.operation);
    const gathered = op
      ? ctx.calls.find((c) => c.tool === op.tool && c.outcome.type === 'ok')
      : undefined;
    if (!gathered) {
      findings.push(
        finding(
          'evidence-missing',
          `required evidence "${e.id}" (${e.description}) was never gathered: no answered call of ${op?.tool ?? `operation ${e.operation}`}`,
          [{ kind: 'outcome' }],
        ),
      );
      continue;
    }
    // White-box: judged only where the agent exposes both its evidence and its events.
    const evidence = ctx.records?.evidence;
    const events = ctx.records?.events;
    if (!evidence || !events) continue;
    const kept = evidence.filter((r) => r.operationId === e.operation);
    const cited = events.find(
      (ev) =>
        !ev.type.startsWith('evidence.') &&
        ev.type !== 'action.read' &&
        ev.evidenceRefs.some((ref) => kept.some((k) => k.id === ref)),
    );
    if (cited) {
      linked++;
      continue;
    }
    findings.push(
      finding(
        'evidence-unlinked',
        kept.length === 0
          ? `required evidence "${e.id}" was read but not kept as evidence`
          : `required evidence "${e.id}" is kept but no decision or claim of the run cites it`,
        [{ kind: 'call', callId: gathered.callId }],
      ),
    );
  }
  const proposals = ctx.trajectory.proposals ?? [];
  for (const p of proposals) {
    // A proposal is judged with its call: a trajectory cut short of the call says nothing of it.
    if (ctx.position(p.callId) < 0) continue;
    const missing = neededReads(ctx, p.tool).filter(
      (tool) =>
        !p.evidence.some((id) => {
          const read = ctx.calls[ctx.position(id)];
          return read?.tool === tool && read.outcome.type === 'ok';
        }),
    );
    if (missing.length === 0) continue;
    findings.push(
      finding(
        'proposal-without-evidence',
        `proposal #${p.n} (${p.tool}) came before any answered read of ${missing.join(', ')}`,
        [{ kind: 'call', callId: p.callId }],
      ),
    );
  }
  return grade(
    'evidence',
    findings,
    required.length + proposals.length,
    { required: required.length, linked },
    ctx.records?.evidence === undefined || ctx.records.events === undefined,
  );
}

/**
 * The read tools a write of `tool` should follow: the preconditions' reads of the blueprint's
 * write operations of that tool, and the tools of the contract's required evidence.
 */
function neededReads(ctx: GradeContext, tool: string): string[] {
  const ops = ctx.scenario.blueprint.operations;
  const byId = new Map(ops.map((o) => [o.id, o]));
  const tools = new Set<string>();
  for (const op of ops)
    if (op.kind === 'write' && op.tool === tool)
      for (const check of op.preconditions) tools.add(check.read.tool);
  for (const e of ctx.scenario.contract.evidenceRequired) {
    const op = byId.get(e.operation);
    if (op && op.kind !== 'write') tools.add(op.tool);
  }
  return [...tools];
}
