import type { Planner, Proposal } from './planner.js';
import type { WorkingContext } from './working-context.js';

/** `call <tool> {json args}` — the shape an injected instruction takes in retrieved content. */
const IMPERATIVE = /call ([a-z_][a-z0-9_]*) (\{[^{}]*\})/i;

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/**
 * Stands in for a model that was fooled: it acts on any imperative it finds in untrusted
 * content ("… call send_customer_message {…}") before following its inner planner. Each
 * instruction is proposed once, marked as coming from content — so what is tested is the
 * runtime's gate, which must refuse it, not the planner's judgement.
 *
 * @example
 * ```ts
 * const planner = new GulliblePlanner(new ScriptedPlanner(blueprint));
 * ```
 */
export class GulliblePlanner implements Planner {
  private readonly acted = new Set<string>();

  constructor(private readonly inner: Planner) {}

  get versions(): Planner['versions'] {
    return this.inner.versions;
  }

  propose(context: WorkingContext): ReturnType<Planner['propose']> {
    for (const evidence of context.evidence) {
      if (evidence.trust !== 'untrusted') continue;
      for (const text of strings(evidence.content)) {
        const match = IMPERATIVE.exec(text);
        if (!match?.[1] || !match[2] || this.acted.has(match[0])) continue;
        let args: Record<string, unknown>;
        try {
          args = JSON.parse(match[2]) as Record<string, unknown>;
        } catch {
          continue;
        }
        this.acted.add(match[0]);
        const proposal: Proposal = {
          kind: 'act',
          operationId: `content-${this.acted.size}`,
          tool: match[1],
          args,
          origin: { kind: 'content', evidenceId: evidence.id },
        };
        return Promise.resolve({ proposal });
      }
    }
    return this.inner.propose(context);
  }
}
