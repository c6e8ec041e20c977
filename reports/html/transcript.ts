import { formatDuration } from '../duration.js';
import { formatLatency, formatTokens, formatUsd, modelText, usageText } from '../model-usage.js';
import {
  messageView,
  type MessagePart,
  type Transcript,
  type TranscriptCall,
} from '../model-transcript.js';
import { html, wholeText, type Html } from './markup.js';
import { clipJson, clipText, TEXT_LIMIT } from './visible-text.js';

/**
 * The model transcript of one run, shown beside its timeline: each call the agent made to its
 * model with the messages it sent (the new ones; the ones it sent again unchanged folded away
 * under "+N earlier messages"), the tools offered, what came back (text, tool calls, finish
 * reason) or the error, and its tokens, cost, latency and the model fault that changed it.
 * Everything the model or the agent wrote is text: it goes through the `html` tag, escaped,
 * its controls spelled out and cut to the page's limit with a note.
 */

/** Parsed JSON on one line, its strings cut to the page's limit (and the whole, at a few). */
const json = (value: unknown): Html =>
  wholeText(
    value === undefined ? 'undefined' : clipText(JSON.stringify(clipJson(value)), 4 * TEXT_LIMIT),
  );

/** The roles the style sheet knows; any other is shown as written, styled as `other`. */
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function renderPart(part: MessagePart): Html {
  switch (part.kind) {
    case 'text':
      return html`<pre class="msg-text">${part.text}</pre>`;
    case 'tool-call':
      return html`<div class="msg-part">
        <span class="what">tool call</span> <code>${part.name}</code>
        <span class="muted">${part.id}</span> <code>${json(part.args)}</code>
      </div>`;
    case 'tool-result':
      return html`<div class="msg-part">
        <span class="what">tool result</span> <code>${part.name}</code>
        <span class="muted">${part.id}</span> <code>${json(part.output)}</code>
      </div>`;
    case 'other':
      return html`<div class="msg-part">
        <span class="what">${part.type}</span> <code>${json(part.value)}</code>
      </div>`;
  }
}

function renderMessage(message: unknown): Html {
  const view = messageView(message);
  const role = ROLES.has(view.role) ? view.role : 'other';
  return html`<li class="msg role-${role}">
    <span class="role">${view.role}</span>
    ${view.parts.map(renderPart)}
  </li>`;
}

function renderCall(key: string, call: TranscriptCall): Html {
  const { kept, messages, tools, settings } = call.request;
  const earlier =
    kept === 0
      ? false
      : call.earlier === null
        ? html`<p class="muted">
            +${kept} earlier message${kept === 1 ? '' : 's'} (sent again unchanged; an earlier call
            could not be read, so they cannot be shown)
          </p>`
        : html`<details class="earlier">
            <summary>
              +${kept} earlier message${kept === 1 ? '' : 's'} (sent again unchanged)
            </summary>
            <ol class="msgs">
              ${call.earlier.map(renderMessage)}
            </ol>
          </details>`;
  const reply = call.reply;
  return html`<article class="model-call" id="${key}-model-call-${call.index}">
    <header>
      <span class="what">model call #${call.index}</span> <code>${call.modelId}</code>
      <span class="muted" title="${call.at} ms of virtual time"
        >t+${formatDuration(call.at)} · incarnation ${call.incarnation}</span
      >
      <span class="badge" title="tokens the provider reported"
        >${formatTokens(call.usage.inputTokens)} in / ${formatTokens(call.usage.outputTokens)} out
        tokens</span
      >
      <span class="badge" title="cost under the model's prices">${formatUsd(call.costUsd)}</span>
      <span class="badge" title="provider latency">${formatLatency(call.latencyMs)}</span>
      ${call.fault !== null && html`<span class="badge warn">fault: ${call.fault}</span>`}
      ${call.error !== null && html`<span class="badge fail">error: ${call.error.class}</span>`}
    </header>
    <div class="sent">
      <div class="lane-title">sent</div>
      ${earlier}
      <ol class="msgs">
        ${messages.map(renderMessage)}
      </ol>
      <div class="kv">
        tools offered <code>${tools.join(', ') || 'none'}</code>${
          Object.keys(settings).length > 0 && html` · settings <code>${json(settings)}</code>`
        }
      </div>
    </div>
    <div class="received">
      <div class="lane-title">received</div>
      ${
        reply !== null
          ? html`${reply.text !== '' && html`<pre class="reply-text">${reply.text}</pre>`}
              ${reply.toolCalls.map(
                (c) =>
                  html`<div class="msg-part">
                    <span class="what">tool call</span> <code>${c.name}</code>
                    <span class="muted">${c.id}</span> <code>${json(c.args)}</code>
                  </div>`,
              )}
              <div class="kv">finish reason <code>${reply.finishReason}</code></div>`
          : call.error !== null
            ? html`<div class="model-error">
                <span class="badge fail">${call.error.class}</span> ${call.error.message}
              </div>`
            : html`<div class="muted">nothing came back</div>`
      }
    </div>
  </article>`;
}

/**
 * A run's model transcript as a section of its page: the model, the run's usage, and every
 * call. `key` scopes the calls' anchors (`<key>-model-call-<n>`) to the run.
 */
export function renderTranscript(key: string, transcript: Transcript): Html {
  const { calls } = transcript;
  const total = calls.reduce(
    (sum, c) => ({
      modelCalls: sum.modelCalls + 1,
      inputTokens: sum.inputTokens + c.usage.inputTokens,
      outputTokens: sum.outputTokens + c.usage.outputTokens,
      costUsd: sum.costUsd + c.costUsd,
      modelLatencyMs: sum.modelLatencyMs + c.latencyMs,
    }),
    { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, modelLatencyMs: 0 },
  );
  return html`<section class="transcript" id="${key}-transcript">
    <h3>Model transcript</h3>
    <p class="muted">
      ${transcript.model !== null && html`<code>${modelText(transcript.model)}</code> · `}${usageText(
        total,
      )}
    </p>
    ${
      transcript.unreadable > 0 &&
      html`<p class="badge warn">
        ${transcript.unreadable} model call(s) in a shape this report does not read are left out
      </p>`
    }
    ${
      calls.length === 0
        ? html`<p class="muted">The agent made no model call.</p>`
        : calls.map((c) => renderCall(key, c))
    }
  </section>`;
}
