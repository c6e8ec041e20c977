import { redactDraft, sequence, type Interaction, type InteractionDraft } from './cassette.js';
import { DEFAULT_REDACTION, type RedactOptions } from './redact.js';

/**
 * The interactions of one recording, in the order they were *made*, not the order they were
 * answered: a slow call started before a fast one stays first. A recorder reserves a place
 * when a request leaves and fills it when the reply comes (or, for a tool call that got none,
 * when the client gave up or the connection closed: see `RecordingTransport`); a place never
 * filled is left out. Payloads are redacted as they are filled, so a
 * secret never sits in a cassette even in memory. One log may be shared by several recorders
 * (MCP and HTTP) to interleave their interactions in one cassette.
 *
 * @example
 * ```ts
 * const log = new InteractionLog();
 * log.add({ kind: 'model', request: { prompt: 'hi' }, reply: { text: 'hello' } });
 * log.interactions(); // [{ step: 1, kind: 'model', occurrence: 1, … }]
 * ```
 */
export class InteractionLog {
  private readonly places: (InteractionDraft | undefined)[] = [];

  constructor(readonly redaction: RedactOptions = DEFAULT_REDACTION) {}

  /** Takes the next place in order; call the returned function with the interaction once it is complete. */
  reserve(): (draft: InteractionDraft) => void {
    const index = this.places.push(undefined) - 1;
    return (draft) => {
      this.places[index] = redactDraft(draft, this.redaction);
    };
  }

  /** Appends a complete interaction (a model turn, or anything recorded after the fact). */
  add(draft: InteractionDraft): void {
    this.reserve()(draft);
  }

  /** The completed interactions, numbered. */
  interactions(): Interaction[] {
    return sequence(this.places.filter((d): d is InteractionDraft => d !== undefined));
  }
}
