import { DIMENSIONS, type Dimension } from '../../graders/grade.js';
import { formatDuration } from '../duration.js';
import { hadModel, modelText, usageOf, usageText } from '../model-usage.js';
import type { Transcript } from '../model-transcript.js';
import type { RunResult } from '../results.js';
import { html, wholeText, type Html, type Interpolation } from './markup.js';
import { runHref, WHITE_BOX_SKIPPED } from './summary.js';
import {
  anchorIds,
  narrowRef,
  refId,
  resolveRef,
  type Ref,
  type Timeline,
  type TimelineBlock,
  type TimelineEntry,
} from './timeline.js';
import type { AgentEventView, TrajectoryView } from './trajectory-view.js';
import { renderTranscript } from './transcript.js';
import { clipJson, clipText, TEXT_LIMIT } from './visible-text.js';

/** A finding that cites an event, as the event shows it. */
interface Citation {
  readonly dimension: Dimension;
  readonly code: string;
  readonly findingId: string;
}

/** What rendering one run's page needs; `trajectory` and `timeline` are null without a trajectory. */
export interface RunPageInput {
  readonly key: string;
  readonly result: RunResult;
  readonly trajectory: TrajectoryView | null;
  readonly timeline: Timeline | null;
  /** The run's model transcript; null when the run had no model (nothing is shown). */
  readonly transcript?: Transcript | null;
}

/**
 * Figures only white-box checks measure (graders/evidence.ts, integrity.ts, operational.ts):
 * when a grade skipped those checks the number it carries was never measured — "linked 0"
 * beside a pass would read as evidence found and cited by nothing.
 */
const WHITE_BOX_FIGURES: Partial<Record<Dimension, readonly string[]>> = {
  evidence: ['linked'],
  integrity: ['checkpoints'],
  operational: ['tokens', 'costUsd'],
};

/** Required evidence and how much of it the run's decisions cite, when that was checked. */
function evidenceFigure(r: RunResult): string {
  const { evidenceLinked: linked, evidenceRequired: required } = r.figures;
  if (required === 0) return 'no evidence required';
  return r.grades.evidence?.whiteBoxSkipped === true
    ? `evidence required ${required}, citations not checked (white-box)`
    : `evidence cited ${linked} of ${required} required`;
}

/** Page-wide ids: a run's anchors are prefixed with its key, so every run can share one page. */
const scoped = (key: string, local: string): string => `${key}-${local}`;

/**
 * Parsed JSON as text (a missing value, which JSON cannot write, as `undefined`), each string in
 * it cut to the page's limit: on one line (cut as a whole too, at a few values' worth), or
 * indented for a block, which stays whole so the world's records read as JSON.
 */
const json = (value: unknown): Html =>
  wholeText(
    value === undefined ? 'undefined' : clipText(JSON.stringify(clipJson(value)), 4 * TEXT_LIMIT),
  );
const pretty = (value: unknown): Html =>
  wholeText(value === undefined ? 'undefined' : JSON.stringify(clipJson(value), null, 2));

function time(at: number): Html {
  return html`<span class="mono" title="${at} ms of virtual time">t+${formatDuration(at)}</span>`;
}

function kv(label: string, value: Interpolation): Html {
  return html`<span class="kv">${label} <code>${value}</code></span>`;
}

/** Joins pieces of markup with a separator, dropping empty ones. */
function joined(parts: readonly (Html | false | null)[], separator: string): Html {
  const kept = parts.filter((p): p is Html => p !== false && p !== null);
  return html`${kept.map((p, i) => (i === 0 ? p : html`${separator}${p}`))}`;
}

/**
 * One run's page: who ran what and how it ended, its grades with every finding linked to the
 * events it cites, and the trajectory as a timeline on which each cited event names its
 * findings.
 */
export function renderRunPage(input: RunPageInput): Html {
  const { key, result: r, trajectory, timeline } = input;
  const transcript = input.transcript ?? null;
  const anchors = timeline ? anchorIds(timeline) : new Set<string>();
  const citations = new Map<string, Citation[]>();
  const findingsMarkup = DIMENSIONS.map((dimension) => {
    const grade = r.grades[dimension];
    if (!grade) return null;
    const items = grade.findings.map((finding, i) => {
      const findingId = scoped(key, `finding-${dimension}-${i}`);
      const refs = finding.refs.map((raw) => {
        const ref = narrowRef(raw);
        if (!ref) return html`<span class="badge">${json(raw)}</span>`;
        const local = trajectory && timeline ? resolveRef(ref, anchors, trajectory.calls) : null;
        if (local === null)
          return html`<span class="badge" title="not in this run's trajectory"
            >${refLabel(ref, trajectory)} (not in the trajectory)</span
          >`;
        const list = citations.get(local) ?? [];
        list.push({ dimension, code: finding.code, findingId });
        citations.set(local, list);
        return html`<a class="badge ref" href="#${scoped(key, local)}"
          >${refLabel(ref, trajectory)}</a
        >`;
      });
      return html`<li class="finding" id="${findingId}">
        <code>${finding.code}</code> ${finding.message}${
          refs.length > 0 && html`<div class="refs">${refs}</div>`
        }
      </li>`;
    });
    const unmeasured = grade.whiteBoxSkipped ? (WHITE_BOX_FIGURES[dimension] ?? []) : [];
    const figures = Object.entries(grade.figures)
      .map(([name, value]) => `${name} ${unmeasured.includes(name) ? 'not checked' : value}`)
      .join(' · ');
    const verdict = !grade.pass
      ? html`<span class="mark fail">✗ fail</span>`
      : grade.notApplicable !== undefined
        ? html`<span class="mark skip" title="${grade.notApplicable}">n/a: not applicable</span>`
        : grade.whiteBoxSkipped
          ? html`<span class="mark skip" title="${WHITE_BOX_SKIPPED}">◐ black-box pass</span>`
          : html`<span class="mark pass">✓ pass</span>`;
    return html`<div class="grade" id="${scoped(key, `grade-${dimension}`)}">
      <h3>
        ${dimension} ${verdict}
        <span class="muted">score ${Math.round(grade.score * 100)}%</span>
      </h3>
      ${grade.whiteBoxSkipped && html`<div class="badge warn">white-box checks skipped: the agent exposes no records</div>`}
      ${figures && html`<div class="figures">${figures}</div>`}
      ${
        items.length > 0
          ? html`<ul class="findings">
              ${items}
            </ul>`
          : html`<div class="muted">no findings</div>`
      }
    </div>`;
  });

  const cites = (localId: string): Html | false => {
    const list = citations.get(localId);
    return (
      list !== undefined &&
      html`<div class="cites">
        ${list.map(
          (c) => html`<a class="badge fail" href="#${c.findingId}">${c.dimension} · ${c.code}</a>`,
        )}
      </div>`
    );
  };

  const facts: [string, Interpolation][] = [
    ['scenario', html`<code>${r.scenarioId}</code> — ${r.title}`],
    ['fault plan', html`<code>${r.faultPlanId}</code>`],
    ['faults planned', r.faultKinds.join(', ') || 'none'],
    ['faults fired', r.faultsFired.join(', ') || 'none'],
    // A note, never a failure: faults that could not reach this agent.
    ...((r.faultsNotApplicable ?? []).length > 0
      ? [
          [
            'faults not applicable',
            (r.faultsNotApplicable ?? [])
              .map((f) => `fault ${f.index} (${f.kind}): ${f.reason}`)
              .join('; '),
          ] as [string, Interpolation],
        ]
      : []),
    ['agent', html`<code>${r.agent}</code> in ${r.mode} mode`],
    // Only a run with a model says anything of models: without one the page reads as before.
    ...(r.model !== undefined
      ? [['model', html`<code>${modelText(r.model)}</code>`] as [string, Interpolation]]
      : []),
    ...(hadModel(r)
      ? [
          [
            'model usage',
            html`${usageText(usageOf(r))}${transcript !== null && html` · <a href="#${key}-transcript">transcript</a>`}`,
          ] as [string, Interpolation],
        ]
      : []),
    ['world', `${r.world} · workflow ${r.workflowClass} · tier ${r.tier}`],
    ['trial · seed', `${r.trial} · ${r.seed}`],
    [
      'final state',
      html`<code>${r.state}</code>${r.stopReason !== null && html` (${r.stopReason})`}${
          r.detail !== null && html` — ${r.detail}`
        }`,
    ],
    [
      'figures',
      `virtual time ${formatDuration(r.figures.virtualMs)} · ${r.figures.calls} calls (${r.figures.okCalls} ok) · ` +
        `${r.figures.writesConfirmed} writes confirmed · ${r.figures.effects} effects · ${r.figures.retries} retries · ` +
        `${r.figures.crashes} crashes · ${evidenceFigure(r)}`,
    ],
    ['interventions', r.interventions.join(', ') || 'none'],
    ['replay', html`<code>${r.replay}</code>`],
  ];

  return html`<section class="run" id="${key}" data-run-id="${r.id}">
    <nav class="top">
      <a href="#summary">← all runs</a>
      <span class="muted">run ${r.index} · <a href="${runHref(r)}">${r.id}</a></span>
    </nav>
    <h2>
      ${r.scenarioId} · ${r.faultPlanId}
      ${r.pass ? html`<span class="mark pass">✓ pass</span>` : html`<span class="mark fail">✗ FAIL</span>`}
    </h2>
    <dl class="run-head">
      ${facts.map(
        ([label, value]) =>
          html`<dt>${label}</dt>
            <dd>${value}</dd>`,
      )}
    </dl>
    ${
      r.mismatches.length > 0 &&
      html`<h3>Not as expected</h3>
        <ul>
          ${r.mismatches.map((m) => html`<li>${m}</li>`)}
        </ul>`
    }
    <h3>Grades</h3>
    <div class="grades">${findingsMarkup}</div>
    <h3>Timeline</h3>
    ${
      trajectory && timeline
        ? html`${agentRecordsNote(trajectory)}
            ${timeline.blocks.map((b) =>
              renderBlock(b, (e) =>
                renderEntry(e, { key, trajectory, cites, cited: citations.has(e.id) }),
              ),
            )}
            ${
              timeline.unfired.length > 0 &&
              html`<h3>Planned faults that never fired</h3>
                <ul class="lane">
                  ${timeline.unfired.map(
                    (u) =>
                      html`<li
                        class="event kind-fault${citations.has(u.id) ? ' cited' : ''}"
                        id="${scoped(key, u.id)}"
                      >
                        <span class="what">fault #${u.index}</span> ${plannedKind(u.planned)}
                        <span class="muted">never fired</span>
                        <pre>${pretty(u.planned)}</pre>
                        ${cites(u.id)}
                      </li>`,
                  )}
                </ul>`
            }
            ${[
              // The transcript joins the outcome's interpolation: a page without one keeps its bytes.
              transcript !== null && renderTranscript(key, transcript),
              renderOutcome(
                key,
                trajectory,
                timeline.outcomeId,
                cites(timeline.outcomeId),
                citations.has(timeline.outcomeId),
              ),
            ]}
            ${
              trajectory.proposals !== undefined &&
              html`<h3>Proposals: writes held in shadow mode</h3>
                <ul class="lane">
                  ${trajectory.proposals.map(
                    (p) =>
                      html`<li class="event kind-call">
                        <span class="what">#${p.n}</span> <code>${p.tool}</code>
                        <span class="muted"
                          >${formatDuration(p.at)} · after ${p.evidence.length} read(s)</span
                        >
                        <pre>${pretty(p.args)}</pre>
                      </li>`,
                  )}
                </ul>`
            }
            <details>
              <summary>world at the start</summary>
              <pre>${pretty(trajectory.world.start)}</pre>
            </details>
            <details>
              <summary>world at the end</summary>
              <pre>${pretty(trajectory.world.end)}</pre>
            </details>`
        : html`<p class="muted">No trajectory was recorded for this run (${r.trajectoryFile}).</p>`
    }
  </section>`;
}

function agentRecordsNote(trajectory: TrajectoryView): Html | false {
  switch (trajectory.agentRecords.kind) {
    case 'none':
      return html`<p class="muted">
        The agent exposes no records: only what the harness saw at the world boundary is shown.
      </p>`;
    case 'unknown-shape':
      return html`<p class="muted">
        The agent's records are in a shape this report does not read; they are left out.
      </p>`;
    case 'events':
      return false;
  }
}

function renderBlock(block: TimelineBlock, entry: (e: TimelineEntry) => Html): Html {
  return html`<section class="block" data-at="${block.at}" data-incarnation="${block.incarnation}">
    <header>
      ${time(block.at)}
      <span class="muted"
        >incarnation ${block.incarnation}${block.incarnation > 0 && ' (after a restart)'}</span
      >
    </header>
    <div class="lanes">
      <ol class="lane world">
        <li class="lane-title">world boundary</li>
        ${block.world.map(entry)}
      </ol>
      <ol class="lane agent">
        <li class="lane-title">agent records</li>
        ${block.agent.map(entry)}
      </ol>
    </div>
  </section>`;
}

function plannedKind(planned: unknown): string {
  if (typeof planned === 'object' && planned !== null && 'kind' in planned) {
    const { kind } = planned;
    if (typeof kind === 'string') return kind;
  }
  return '';
}

function refLabel(ref: Ref, trajectory: TrajectoryView | null): string {
  switch (ref.kind) {
    case 'call': {
      const call = trajectory?.calls.find((c) => c.callId === ref.callId);
      return `call ${ref.callId}${call ? ` · ${call.tool}` : ''}`;
    }
    case 'effect':
      return `effect #${ref.seq}`;
    case 'fault': {
      const kind = plannedKind(trajectory?.faults.planned[ref.index]);
      return `fault #${ref.index}${kind && ` · ${kind}`}`;
    }
    case 'crash': {
      const crash = trajectory?.crashes[ref.index];
      return `crash #${ref.index}${crash ? ` · ${crash.probe}` : ''}`;
    }
    case 'operator': {
      const entry = trajectory?.operator[ref.index];
      return `operator #${ref.index}${entry ? ` · ${entry.kind}` : ''}`;
    }
    case 'approval':
      return `approval ${ref.token}`;
    case 'agent-event': {
      const records = trajectory?.agentRecords;
      const event =
        records?.kind === 'events' ? records.events.find((e) => e.seq === ref.seq) : undefined;
      return `agent event #${ref.seq}${event ? ` · ${event.type}` : ''}`;
    }
    case 'outcome':
      return 'outcome';
  }
}

interface EntryContext {
  readonly key: string;
  readonly trajectory: TrajectoryView;
  readonly cites: (localId: string) => Html | false;
  readonly cited: boolean;
}

function link(key: string, local: string, label: Interpolation): Html {
  return html`<a href="#${scoped(key, local)}">${label}</a>`;
}

/** One event of the timeline: a single switch over the kinds. */
function renderEntry(e: TimelineEntry, ctx: EntryContext): Html {
  const { key, trajectory } = ctx;
  const callLink = (callId: string): Html =>
    trajectory.calls.some((c) => c.callId === callId)
      ? link(key, refId({ kind: 'call', callId }), `call ${callId}`)
      : html`<code>${callId}</code>`;
  let kindClass: string = e.kind;
  let body: Html;
  switch (e.kind) {
    case 'call': {
      const c = e.call;
      const outcome =
        c.outcome.type === 'ok'
          ? html`<span class="badge ok">ok</span>`
          : c.outcome.type === 'fail'
            ? html`<span class="badge fail">fail: ${c.outcome.class}</span>`
            : html`<span class="badge warn">no answer: ${c.outcome.reason}</span>`;
      const fired = trajectory.faults.fired.filter((f) => f.callId === c.callId);
      body = html`<div>
          <span class="what">call</span> <code>${c.tool}</code>
          <span class="muted">${c.callId}</span> ${outcome}
          ${c.reply !== 'delivered' && html`<span class="badge warn">reply ${c.reply}</span>`}
          ${c.fault !== null && html`<span class="badge warn">fault: ${c.fault}</span>`}
        </div>
        <div><code>${json(c.args)}</code></div>
        <div>
          ${joined(
            [
              c.idempotencyKey !== null && kv('idempotency key', c.idempotencyKey),
              c.approvalToken !== null && kv('approval', c.approvalToken),
              c.effects.length > 0 &&
                html`<span class="kv"
                  >effects
                  ${joined(
                    c.effects.map((seq) => link(key, `ev-effect-${seq}`, `#${seq}`)),
                    ', ',
                  )}</span
                >`,
              fired.length > 0 &&
                html`<span class="kv"
                  >faults
                  ${joined(
                    fired.map((f) => link(key, `ev-fault-${f.index}`, `#${f.index} ${f.kind}`)),
                    ', ',
                  )}</span
                >`,
            ],
            ' · ',
          )}
        </div>`;
      break;
    }
    case 'fault': {
      const f = e.fault;
      body = html`<div>
          <span class="what">fault injected</span> <code>${f.kind}</code>
          <span class="muted">#${f.index}</span>
          ${f.callId !== null && html` on ${callLink(f.callId)}`}
        </div>
        <div>${f.detail}</div>
        ${
          e.planned !== null &&
          html`<details>
            <summary>as planned</summary>
            <pre>${pretty(e.planned)}</pre>
          </details>`
        }`;
      break;
    }
    case 'effect': {
      const x = e.effect;
      body = html`<div>
          <span class="what">effect #${x.seq}</span> <code>${x.tool}</code> ${
            x.runId === null
              ? html`<span class="muted">(scenario setup)</span>`
              : x.requestId !== null &&
                (trajectory.calls.some((c) => c.callId === x.requestId)
                  ? html`by ${callLink(x.requestId)}`
                  : html`<span class="muted">from outside the run (${x.requestId})</span>`)
          }
        </div>
        <div>
          ${joined(
            [
              kv('identity', x.identity),
              x.idempotencyKey !== null && kv('idempotency key', x.idempotencyKey),
              x.approvalToken !== null && kv('approval', x.approvalToken),
              x.compensates !== null &&
                html`<span class="kv"
                  >compensates ${link(key, `ev-effect-${x.compensates}`, `#${x.compensates}`)}</span
                >`,
            ],
            ' · ',
          )}
        </div>
        <div><code>${json(x.effect)}</code></div>`;
      break;
    }
    case 'approval': {
      const a = e.approval;
      body = html`<div>
          <span class="what">approval granted</span> <code>${a.token}</code> by ${a.approver}
        </div>
        <div>${kv('tool', a.tool)} · ${kv('identity', a.identity)}</div>
        <div class="kv">
          ${
            a.consumedAt === null
              ? 'never consumed'
              : html`consumed at
                ${time(a.consumedAt)}${a.consumedBy !== null && html` by ${callLink(a.consumedBy)}`}`
          }
        </div>`;
      break;
    }
    case 'operator':
      body = html`<div>
          <span class="what">operator</span> <code>${e.entry.kind}</code>
          <span class="muted">#${e.index}</span>
        </div>
        <div>${e.entry.detail}</div>`;
      break;
    case 'crash': {
      const c = e.crash;
      const restarted =
        trajectory.calls.some((call) => call.incarnation > e.index) ||
        (trajectory.agentRecords.kind === 'events' &&
          trajectory.agentRecords.events.some((ev) => ev.type === 'run.resumed'));
      body = html`<div>
          <span class="what">crash</span> at probe <code>${c.probe}</code>
          <span class="muted">#${e.index}</span>
        </div>
        <div>
          ${joined(
            [
              kv('mode', c.mode),
              c.operation !== null && kv('operation', c.operation),
              c.pid !== null && kv('pid', c.pid),
              c.signal !== null && kv('signal', c.signal),
              c.resumedPid !== null && kv('resumed by pid', c.resumedPid),
            ],
            ' · ',
          )}
        </div>
        <div class="kv">
          ${restarted ? `the agent restarts as incarnation ${e.index + 1}` : 'no restart followed'}
        </div>`;
      break;
    }
    case 'agent-event': {
      const ev = e.event;
      if (ev.toState !== null) kindClass = 'agent-event transition';
      body = renderAgentEvent(ev, trajectory);
      break;
    }
  }
  return html`<li
    class="event kind-${kindClass}${ctx.cited ? ' cited' : ''}"
    id="${scoped(key, e.id)}"
  >
    ${body}${ctx.cites(e.id)}
  </li>`;
}

function renderAgentEvent(ev: AgentEventView, trajectory: TrajectoryView): Html {
  const records = trajectory.agentRecords;
  const evidence =
    records.kind === 'events'
      ? ev.evidenceRefs.map((id) => ({ id, item: records.evidence.get(id) }))
      : [];
  // The event that fetched evidence shows its content; later events citing it list it only.
  const fetched = ev.requestId !== null;
  return html`<div>
      <span class="what">${ev.type}</span>
      <span class="muted">#${ev.seq}</span>
      ${ev.toState !== null && html`<span class="badge">${ev.fromState ?? '∅'} → ${ev.toState}</span>`}
    </div>
    ${ev.reason !== null && html`<div>${ev.reason}</div>`}
    <div>
      ${joined(
        [
          ev.operationId !== null && kv('operation', ev.operationId),
          ev.resultClass !== null && kv('result', ev.resultClass),
          ev.policyRule !== null && kv('policy', ev.policyRule),
          ev.idempotencyKey !== null && kv('idempotency key', ev.idempotencyKey),
          ev.requestId !== null && kv('request', ev.requestId),
        ],
        ' · ',
      )}
    </div>
    ${ev.data !== null && ev.data !== undefined && html`<div><code>${json(ev.data)}</code></div>`}
    ${
      evidence.length > 0 &&
      (fetched
        ? evidence.map(
            ({ id, item }) =>
              html`<details>
                <summary>evidence ${item ? `${item.tool} (${item.trust})` : id}</summary>
                <pre>${item ? pretty(item.content) : 'not in the agent records'}</pre>
              </details>`,
          )
        : html`<div class="kv">cites ${evidence.length} evidence item(s)</div>`)
    }`;
}

function renderOutcome(
  key: string,
  trajectory: TrajectoryView,
  id: string,
  cites: Html | false,
  cited: boolean,
): Html {
  const o = trajectory.outcome;
  const x = trajectory.expected;
  return html`<h3>Outcome</h3>
    <div class="event kind-outcome${cited ? ' cited' : ''}" id="${scoped(key, id)}">
      <div class="muted">${time(trajectory.times.virtualMs)}</div>
      <div>
        <span class="what">ended</span>
        <code>${o.state}</code>${o.stopReason !== null && html` (${o.stopReason})`}${
          o.hung && html` <span class="badge fail">hung</span>`
        }
      </div>
      ${o.detail !== null && html`<div>${o.detail}</div>`}
      ${
        x &&
        html`<div class="kv">
            expected <code>${x.state}</code>${x.stopReason !== null && html` (${x.stopReason})`}
          </div>
          <details>
            <summary>expected world</summary>
            <pre>${pretty(x.world)}</pre>
          </details>`
      }
      ${cites}
    </div>`;
}
