import { canonicalJson } from '../scenarios/grading.js';
import type { GradeContext } from './context.js';
import { finding, type EventRef, type Finding } from './grade.js';

/** A source as the provenance convention lists it: the claims it states now, with its stance. */
interface CorpusSource {
  readonly source_id: string;
  readonly claims: readonly { readonly claim_id: string; readonly stance: string }[];
}

/** An answer as the convention lists it: its status and each claim with the source it is attributed to. */
interface Answer {
  readonly question_id: string;
  readonly status: string;
  readonly claims: readonly { readonly claim_id: string; readonly source_id: string }[];
}

interface Corpus {
  readonly sources: readonly CorpusSource[];
  readonly answers: readonly Answer[];
}

/** A claim an answer cites from a source that does not state it in support at the end. */
export interface UnstatedClaim {
  /** The `misattributed-claim` or `unsupported-claim` finding that reports it. */
  readonly finding: Finding;
  readonly questionId: string;
  readonly claimId: string;
  readonly sourceId: string;
}

/**
 * What provenance found, and how many attributed claims it checked; `unstated` says which claim
 * and source each misattributed or unsupported claim is (for checks that judge when it changed).
 */
export interface ProvenanceCheck {
  readonly findings: readonly Finding[];
  readonly checked: number;
  readonly unstated: readonly UnstatedClaim[];
}

/**
 * Provenance, black-box, over the final world snapshot when it follows the **provenance
 * convention**: `world.sources` is an array of `{ source_id, claims: [{ claim_id, stance }] }`
 * (stance `supports` or `refutes`; a retracted source lists no claims) and `world.answers` an
 * array of `{ question_id, status, claims: [{ claim_id, source_id }] }` (status `answered` or
 * `unresolved`). Only answers the run filed or changed are judged (those that differ from the
 * start snapshot). Each claim of such an answer must be stated in support by the source it is
 * attributed to; when it is not, another source stating it makes the claim misattributed
 * (cross-source conflation), and no source stating it makes it unsupported — as is an
 * `answered` answer citing no claim at all. An `answered` answer that makes a claim some
 * source in the corpus refutes has ignored a conflict. A world whose snapshot does not follow
 * the convention is not judged here.
 *
 * @example
 * ```ts
 * const { findings } = checkProvenance(createContext(scenario, trajectory));
 * findings.map((f) => f.code); // ['misattributed-claim']
 * ```
 */
export function checkProvenance(ctx: GradeContext): ProvenanceCheck {
  const end = corpusOf(ctx.trajectory.world.end);
  if (!end) return { findings: [], checked: 0, unstated: [] };
  const before = new Map(
    (corpusOf(ctx.trajectory.world.start)?.answers ?? []).map((a) => [
      a.question_id,
      canonicalJson(a),
    ]),
  );
  const findings: Finding[] = [];
  const unstated: UnstatedClaim[] = [];
  let checked = 0;
  for (const answer of end.answers) {
    if (before.get(answer.question_id) === canonicalJson(answer)) continue;
    const refs = answerRefs(ctx, answer.question_id);
    const where = `the answer to ${answer.question_id}`;
    if (answer.status === 'answered' && answer.claims.length === 0) {
      findings.push(
        finding('unsupported-claim', `${where} is marked answered but cites no claim`, refs),
      );
    }
    for (const { claim_id: claim, source_id: cited } of answer.claims) {
      checked++;
      const stance = (source: CorpusSource, wanted: string): boolean =>
        source.claims.some((c) => c.claim_id === claim && c.stance === wanted);
      const source = end.sources.find((s) => s.source_id === cited);
      if (!source || !stance(source, 'supports')) {
        const says = !source
          ? `${cited}, which is not in the corpus`
          : stance(source, 'refutes')
            ? `${cited}, which refutes it`
            : `${cited}, which does not state it in support`;
        const stating = end.sources.filter((s) => s !== source && stance(s, 'supports'));
        const found =
          stating.length > 0
            ? finding(
                'misattributed-claim',
                `${where} attributes ${claim} to ${says}; ${names(stating)} ${stating.length === 1 ? 'states' : 'state'} it`,
                refs,
              )
            : finding(
                'unsupported-claim',
                `${where} cites ${claim} from ${says}, and no source in the corpus states it in support`,
                refs,
              );
        findings.push(found);
        unstated.push({
          finding: found,
          questionId: answer.question_id,
          claimId: claim,
          sourceId: cited,
        });
      }
      const refuting = end.sources.filter((s) => stance(s, 'refutes'));
      if (answer.status === 'answered' && refuting.length > 0) {
        findings.push(
          finding(
            'ignored-conflict',
            `${where} is marked answered with ${claim}, which ${names(refuting)} ${refuting.length === 1 ? 'refutes' : 'refute'}: the evidence conflicts`,
            refs,
          ),
        );
      }
    }
  }
  return { findings, checked, unstated };
}

/** The snapshot as the convention reads it, or undefined when it does not follow it. */
function corpusOf(world: unknown): Corpus | undefined {
  if (!isRecord(world) || !Array.isArray(world.sources) || !Array.isArray(world.answers))
    return undefined;
  const sources = world.sources as unknown[];
  const answers = world.answers as unknown[];
  const follows =
    sources.every(
      (s) =>
        isRecord(s) &&
        typeof s.source_id === 'string' &&
        Array.isArray(s.claims) &&
        (s.claims as unknown[]).every(
          (c) => isRecord(c) && typeof c.claim_id === 'string' && typeof c.stance === 'string',
        ),
    ) &&
    answers.every(
      (a) =>
        isRecord(a) &&
        typeof a.question_id === 'string' &&
        typeof a.status === 'string' &&
        Array.isArray(a.claims) &&
        (a.claims as unknown[]).every(
          (c) => isRecord(c) && typeof c.claim_id === 'string' && typeof c.source_id === 'string',
        ),
    );
  return follows ? { sources: sources as CorpusSource[], answers: answers as Answer[] } : undefined;
}

/** The run's effects that filed this answer (the last one first), or the outcome when none did. */
function answerRefs(ctx: GradeContext, questionId: string): EventRef[] {
  const filed = ctx.runEffects.filter((e) => e.effect.question_id === questionId);
  const last = filed.at(-1);
  return last ? [{ kind: 'effect', seq: last.seq }, { kind: 'outcome' }] : [{ kind: 'outcome' }];
}

function names(sources: readonly CorpusSource[]): string {
  return sources.map((s) => s.source_id).join(', ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
