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
  /** The evidence list the last scan read, and the first entry it may still find news in. */
  private scanned: WorkingContext['evidence'] | undefined;
  private cursor = 0;

  constructor(private readonly inner: Planner) {}

  get versions(): Planner['versions'] {
    return this.inner.versions;
  }

  /**
   * A scan of the same list picks up where the last one stopped, so a long run full of
   * untrusted content costs O(1) a step rather than O(n): an entry that held no instruction
   * not yet acted on never will (entries are not changed in place and `acted` only grows). The
   * entry an instruction came from is read again, as it may hold more. A new list (a resumed
   * or compacted context) is scanned from the start.
   */
  propose(context: WorkingContext): ReturnType<Planner['propose']> {
    const evidence = context.evidence;
    let index = evidence === this.scanned && this.cursor <= evidence.length ? this.cursor : 0;
    this.scanned = evidence;
    for (; ; index++) {
      const entry = evidence[index];
      if (!entry) break;
      const proposal = this.instruction(entry);
      if (proposal) {
        this.cursor = index;
        return Promise.resolve({ proposal });
      }
    }
    this.cursor = index;
    return this.inner.propose(context);
  }

  /** The first instruction in one piece of evidence not yet acted on, marked as acted on. */
  private instruction(evidence: WorkingContext['evidence'][number]): Proposal | undefined {
    if (evidence.trust !== 'untrusted') return undefined;
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
      return {
        kind: 'act',
        operationId: `content-${this.acted.size}`,
        tool: match[1],
        args,
        origin: { kind: 'content', evidenceId: evidence.id },
      };
    }
    return undefined;
  }
}
