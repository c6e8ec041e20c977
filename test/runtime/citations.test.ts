import { describe, expect, it } from 'vitest';
import { parseBlueprint, type BlueprintInput } from '../../runtime/blueprint.js';
import type { WireAction, WireCall } from '../../faults/wire-transport.js';
import type { ContractInput } from '../../runtime/contract.js';
import type { RunCredential } from '../../runtime/credential.js';
import type { Planner, Proposal } from '../../runtime/planner.js';
import { META } from '../../runtime/protocol.js';
import type { Safeguards } from '../../runtime/safeguards.js';
import {
  fileAnswer,
  fileUnresolved,
  notFiled,
  readSource,
  researchContract,
} from '../../scenarios/library/research/common.js';
import type { ResearchWorld } from '../../scenarios/worlds/research/world.js';
import { runResearch, type ResearchRun } from '../support/research-harness.js';

// q_5's corpus: src_13 (a dataset) states lfp-share-2024 and lfp-china-majority; src_14 (an
// article) states lfp-share-2024 only. Same shape for every seed.
const QUESTION = 'q_5';
const DATASET = 'src_13';
const ARTICLE = 'src_14';
const SHARE = { claim_id: 'lfp-share-2024', source_id: DATASET };
const CHINA_FROM_ARTICLE = { claim_id: 'lfp-china-majority', source_id: ARTICLE };
const SHARE_FROM_ARTICLE = { claim_id: 'lfp-share-2024', source_id: ARTICLE };

const contract: ContractInput = researchContract({
  question: QUESTION,
  sources: [DATASET, ARTICLE],
  objective: 'Answer q_5, each claim cited to a source that states it.',
});

/** Read the dataset, file the answer with a citation check for each of its claims, or else file it unresolved. */
function blueprint(): BlueprintInput {
  return {
    id: 'cited-answer',
    version: '1',
    operations: [
      readSource('dataset', DATASET, 'Read the dataset'),
      fileAnswer({ description: 'File the answer', summary: 'Yes.', when: { all: [] } }),
      fileUnresolved({ description: 'Or not', summary: 'Unresolved.', when: notFiled('answer') }),
    ],
  };
}

/** The blueprint above over `claims`, on a fresh research world. */
function run(options: {
  claims: readonly { claim_id: string; source_id: string }[];
  safeguards?: Partial<Safeguards>;
  decoratePlanner?: (planner: Planner) => Planner;
  between?: (world: ResearchWorld, credential: RunCredential) => void;
  later?: (call: Readonly<WireCall>) => WireAction | undefined;
}): Promise<ResearchRun> {
  return runResearch({
    contract,
    blueprint: blueprint(),
    input: { question_id: QUESTION, claims: options.claims },
    ...(options.safeguards ? { safeguards: options.safeguards } : {}),
    ...(options.decoratePlanner ? { decoratePlanner: options.decoratePlanner } : {}),
    ...(options.between ? { between: options.between } : {}),
    ...(options.later ? { later: options.later } : {}),
  });
}

/** A refusal on the wire that the world never saw: `cls`, with `message` (and `extra`). */
function refusal(
  fault: string,
  cls: string,
  message: string,
  extra: Record<string, unknown> = {},
): WireAction {
  return {
    kind: 'respond',
    fault,
    result: {
      isError: true,
      content: [{ type: 'text', text: message }],
      _meta: { [META.error]: { class: cls, message, ...extra } },
    },
  };
}

/**
 * The blueprint over `claims`, the dataset retracted at the first call (from the second on)
 * that `at` picks, which meets `action` on the wire.
 */
function runRetracting(
  claims: readonly { claim_id: string; source_id: string }[],
  at: (call: Readonly<WireCall>) => boolean,
  action: WireAction,
): Promise<ResearchRun> {
  let world: ResearchWorld | undefined;
  let done = false;
  return run({
    claims,
    between: (w) => {
      world = w;
    },
    later: (call) => {
      if (done || !at(call)) return undefined;
      done = true;
      world?.applyStaleChange('source-retracted', { source_id: DATASET });
      return action;
    },
  });
}

describe('the blueprint’s citations', () => {
  it('default to none, and parse like preconditions, with the list they check each element of', () => {
    const parsed = parseBlueprint(blueprint());

    expect(parsed.operations[0]?.citations).toEqual([]);
    expect(parsed.operations[1]?.citations).toHaveLength(1);
    expect(parsed.operations[1]?.citations[0]?.read.tool).toBe('read_source');
    expect(parsed.operations[1]?.citations[0]?.each).toBe('args.claims');
  });

  it('refuse an empty `each`, naming the field', () => {
    const bad = blueprint();
    const answer = bad.operations[1]!;
    bad.operations[1] = { ...answer, citations: [{ ...answer.citations![0]!, each: '' }] };

    expect(() => parseBlueprint(bad, 'bp.json')).toThrow(/operations\[1\]\.citations\[0\]\.each/);
  });
});

describe('the claim-to-source check before a write that cites sources', () => {
  it('sends the write when every cited source, read fresh, still states its claim', async () => {
    const r = await run({ claims: [SHARE] });

    expect(r.outcome.state).toBe('completed');
    expect(r.submitted).toEqual([
      { question_id: QUESTION, status: 'answered', claims: [SHARE], summary: 'Yes.' },
    ]);
    // The dataset read by the plan, then again right before the write.
    expect(r.calls.map((c) => c.tool)).toEqual([
      'read_source',
      'read_source',
      'submit_answer',
      'get_answer',
    ]);
    expect(r.events.filter((e) => e.operationId === 'answer:citation')).toHaveLength(1);
    expect(r.actions.find((a) => a.operationId === 'unresolved')?.status).toBe('skipped');
  });

  it('does not send a write citing a source that no longer states its claim; the fallback runs instead', async () => {
    const r = await run({
      claims: [SHARE],
      between: (world) => world.applyStaleChange('source-retracted', { source_id: DATASET }),
    });

    expect(r.outcome).toMatchObject({ state: 'completed', stopReason: null });
    expect(r.submitted).toEqual([
      { question_id: QUESTION, status: 'unresolved', claims: [], summary: 'Unresolved.' },
    ]);
    const answer = r.actions.find((a) => a.operationId === 'answer');
    expect(answer).toMatchObject({ status: 'skipped', idempotencyKey: null });
    const skipped = r.events.find((e) => e.type === 'action.skipped' && e.operationId === 'answer');
    expect(skipped?.policyRule).toBe('source-check');
    expect(skipped?.reason).toMatch(
      /^citation check failed: the cited source still states the claim in support \(args\.claims\[0\] = \{"claim_id":"lfp-share-2024","source_id":"src_13"\}\)/,
    );
    expect(r.world.state.answers.map((a) => a.status)).toEqual(['unresolved']);
  });

  it('checks again before resending a write that failed: a source retracted during the backoff is caught', async () => {
    // The first submit fails transiently, and the dataset is retracted as it does.
    const r = await runRetracting(
      [SHARE],
      (call) => call.tool === 'submit_answer',
      refusal('transient', 'transient', 'try again'),
    );

    expect(r.submitted.map((a) => a.status)).toEqual(['answered', 'unresolved']);
    expect(r.world.state.answers.map((a) => a.status)).toEqual(['unresolved']);
    expect(r.actions.find((a) => a.operationId === 'answer')?.status).toBe('skipped');
    expect(r.outcome).toMatchObject({ state: 'completed', stopReason: null });
  });

  it('checks every citation again when one check had to wait: a source retracted meanwhile is caught', async () => {
    let reads = 0;
    // Checks of two sources are not atomic. The check of the article (the second check) is
    // rate-limited, and the dataset, already checked, is retracted while the run waits.
    const r = await runRetracting(
      [SHARE, SHARE_FROM_ARTICLE],
      (call) => call.tool === 'read_source' && ++reads === 2,
      refusal('rate-limit', 'rate_limited', 'slow down'),
    );

    // The plan's read, the two checks (the second retried), then both checks again, and the
    // fallback filed.
    expect(
      r.calls.map((c) => `${c.tool}:${(c.args.source_id as string | undefined) ?? ''}`),
    ).toEqual([
      `read_source:${DATASET}`,
      `read_source:${DATASET}`,
      `read_source:${ARTICLE}`,
      `read_source:${ARTICLE}`,
      `read_source:${DATASET}`,
      `read_source:${ARTICLE}`,
      'submit_answer:',
      'get_answer:',
    ]);
    expect(r.submitted.map((a) => a.status)).toEqual(['unresolved']);
    expect(r.actions.find((a) => a.operationId === 'answer')?.status).toBe('skipped');
  });

  it('asks whether a write that timed out landed, and checks its citations before sending it again', async () => {
    // The first submit never reaches the world and no reply comes; the dataset is retracted.
    const r = await runRetracting([SHARE], (call) => call.tool === 'submit_answer', {
      kind: 'drop-request',
      fault: 'timeout',
    });

    // A resend under the same key would have filed the retracted citation.
    expect(r.calls.map((c) => c.tool)).toEqual([
      'read_source',
      'read_source',
      'submit_answer',
      'get_answer',
      'read_source',
      'submit_answer',
      'get_answer',
    ]);
    expect(r.submitted.map((a) => a.status)).toEqual(['answered', 'unresolved']);
    expect(r.world.state.answers.map((a) => a.status)).toEqual(['unresolved']);
    expect(r.outcome).toMatchObject({ state: 'completed', stopReason: null });
  });

  it('checks every citation: one claim attributed to a source that never stated it stops the write', async () => {
    const r = await run({ claims: [SHARE, CHINA_FROM_ARTICLE] });

    expect(r.submitted.map((a) => a.status)).toEqual(['unresolved']);
    const skipped = r.events.find((e) => e.type === 'action.skipped' && e.operationId === 'answer');
    expect(skipped?.reason).toContain('args.claims[1]');
    expect(skipped?.reason).not.toContain('args.claims[0]');
  });

  it('stops for a person when the run may no longer read a cited source: lost access is no verdict on the source', async () => {
    const r = await run({
      claims: [SHARE],
      between: (world, credential) => {
        world.credentials.restrict(credential.token, 'read_source');
      },
    });

    expect(r.outcome).toMatchObject({ state: 'blocked', stopReason: 'permission-lost' });
    expect(r.submitted).toEqual([]);
    expect(r.actions.find((a) => a.operationId === 'answer')?.status).not.toBe('skipped');
  });

  it('stops when a cited source cannot be read even after waiting out its rate limits: an unread source is no verdict either', async () => {
    // Every read of the dataset after the plan's own is rate-limited (exploration found the
    // runtime taking this for a citation that no longer holds, and filing "unresolved").
    const limited = (call: Readonly<WireCall>): WireAction | undefined =>
      call.tool === 'read_source'
        ? refusal('rate-limit', 'rate_limited', 'rate limit exceeded', { retryAfterMs: 1_000 })
        : undefined;
    const r = await run({ claims: [SHARE], later: limited });

    expect(r.outcome.state).not.toBe('completed');
    expect(r.outcome.stopReason).toBe('budget-exhausted');
    expect(r.submitted).toEqual([]);
    expect(r.actions.find((a) => a.operationId === 'answer')?.status).not.toBe('skipped');
  });

  it('with source-check off, sends the write as cited, unchecked (the misattributes-sources flaw)', async () => {
    const r = await run({
      claims: [SHARE],
      safeguards: { 'source-check': false },
      between: (world) => world.applyStaleChange('source-retracted', { source_id: DATASET }),
    });

    expect(r.submitted).toEqual([
      { question_id: QUESTION, status: 'answered', claims: [SHARE], summary: 'Yes.' },
    ]);
    expect(r.events.some((e) => e.operationId === 'answer:citation')).toBe(false);
    expect(r.world.state.sources.find((s) => s.source_id === DATASET)?.claims).toEqual([]);
  });

  it('with fresh-read off, checks citations against what was read before, and misses the change', async () => {
    const r = await run({
      claims: [SHARE],
      safeguards: { 'fresh-read': false },
      between: (world) => world.applyStaleChange('source-retracted', { source_id: DATASET }),
    });

    expect(r.submitted.map((a) => a.status)).toEqual(['answered']);
    expect(r.calls.filter((c) => c.tool === 'read_source')).toHaveLength(1);
  });
});

/** A planner that follows `inner` but rewrites what it proposes (a model that improvises). */
function improvising(inner: Planner, rewrite: (proposal: Proposal) => Proposal): Planner {
  return {
    versions: inner.versions,
    propose: async (context) => {
      const { proposal, usage } = await inner.propose(context);
      const rewritten = rewrite(proposal as Proposal);
      return usage ? { proposal: rewritten, usage } : { proposal: rewritten };
    },
  };
}

/** The claims of every `submit_answer` sent. */
function filedClaims(r: ResearchRun): unknown[] {
  return r.submitted.flatMap((a) => (Array.isArray(a.claims) ? (a.claims as unknown[]) : []));
}

describe('claim-to-source checks over the filing as sent, not the blueprint’s list', () => {
  it('checks a claim the planner added to the filing: one whose source does not state it is never filed', async () => {
    // The blueprint was written for one claim; the planner files two, the second attributed to
    // the article, which never states it.
    const r = await run({
      claims: [SHARE],
      decoratePlanner: (inner) =>
        improvising(inner, (p) =>
          p.kind === 'act' && p.operationId === 'answer'
            ? {
                ...p,
                args: { ...p.args, claims: [...(p.args.claims as unknown[]), CHINA_FROM_ARTICLE] },
              }
            : p,
        ),
    });

    expect(filedClaims(r)).not.toContainEqual(CHINA_FROM_ARTICLE);
    expect(r.submitted.map((a) => a.status)).toEqual(['unresolved']);
    const skipped = r.events.find((e) => e.type === 'action.skipped' && e.operationId === 'answer');
    expect(skipped?.policyRule).toBe('source-check');
    expect(skipped?.reason).toContain(`"source_id":"${ARTICLE}"`);
    expect(skipped?.reason).not.toContain(`"source_id":"${DATASET}"`);
    // Both sources read fresh right before the (unsent) filing.
    const checked = r.calls.filter(
      (c, i) => c.tool === 'read_source' && i > 0 && r.calls[i - 1]?.tool !== 'submit_answer',
    );
    expect(checked.map((c) => c.args.source_id)).toEqual([DATASET, ARTICLE]);
  });

  it('files a claim the planner added when its source does state it, checking it first', async () => {
    const r = await run({
      claims: [SHARE],
      decoratePlanner: (inner) =>
        improvising(inner, (p) =>
          p.kind === 'act' && p.operationId === 'answer'
            ? {
                ...p,
                args: { ...p.args, claims: [...(p.args.claims as unknown[]), SHARE_FROM_ARTICLE] },
              }
            : p,
        ),
    });

    expect(r.submitted.map((a) => a.claims)).toEqual([[SHARE, SHARE_FROM_ARTICLE]]);
    expect(
      r.calls.map((c) => `${c.tool}:${(c.args.source_id as string | undefined) ?? ''}`),
    ).toEqual([
      `read_source:${DATASET}`,
      `read_source:${DATASET}`,
      `read_source:${ARTICLE}`,
      'submit_answer:',
      'get_answer:',
    ]);
  });

  it('does not send a filing whose claims are not a list: they cannot be checked', async () => {
    const r = await run({
      claims: [SHARE],
      decoratePlanner: (inner) =>
        improvising(inner, (p) =>
          p.kind === 'act' && p.operationId === 'answer'
            ? { ...p, args: { ...p.args, claims: { first: CHINA_FROM_ARTICLE } } }
            : p,
        ),
    });

    expect(r.submitted.map((a) => a.status)).toEqual(['unresolved']);
    const skipped = r.events.find((e) => e.type === 'action.skipped' && e.operationId === 'answer');
    expect(skipped?.reason).toMatch(/args\.claims is not a list/);
  });

  it('checks a filing the planner makes under an operation of its own, or under the fallback’s', async () => {
    // Before the blueprint's steps, the planner files the unsupported claim twice: once as an
    // operation the blueprint does not have, once through the fallback (which cites nothing).
    const own: Proposal[] = [
      {
        kind: 'act',
        operationId: 'quick-answer',
        tool: 'submit_answer',
        args: {
          question_id: QUESTION,
          status: 'answered',
          claims: [CHINA_FROM_ARTICLE],
          summary: 'Fast.',
        },
        origin: { kind: 'blueprint' },
      },
      {
        kind: 'act',
        operationId: 'unresolved',
        tool: 'submit_answer',
        args: {
          question_id: QUESTION,
          status: 'answered',
          claims: [CHINA_FROM_ARTICLE],
          summary: 'Also.',
        },
        origin: { kind: 'blueprint' },
      },
    ];
    const r = await run({
      claims: [SHARE],
      decoratePlanner: (inner) => ({
        versions: inner.versions,
        propose: (context) => {
          const next = own.shift();
          return next ? Promise.resolve({ proposal: next }) : inner.propose(context);
        },
      }),
    });

    expect(filedClaims(r)).not.toContainEqual(CHINA_FROM_ARTICLE);
    expect(r.submitted.map((a) => a.claims)).toEqual([[SHARE]]);
    const skipped = r.events.filter(
      (e) => e.type === 'action.skipped' && e.policyRule === 'source-check',
    );
    expect(skipped.map((e) => e.operationId)).toEqual(['quick-answer', 'unresolved']);
  });
});
