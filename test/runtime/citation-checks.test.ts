import { describe, expect, it } from 'vitest';
import type { CitationCheck } from '../../runtime/blueprint.js';
import { expandCitations } from '../../runtime/citation-checks.js';
import { evaluate } from '../../runtime/predicate.js';

const perClaim: CitationCheck = {
  description: 'the cited source states the claim',
  each: 'args.claims',
  read: { tool: 'read_source', args: { source_id: { $ref: 'cited.source_id' } } },
  expect: {
    some: {
      path: 'fresh.claims',
      where: { path: 'item.claim_id', op: 'eq', value: { $ref: 'cited.claim_id' } },
    },
  },
};

const fixed: CitationCheck = {
  description: 'the report is still active',
  read: { tool: 'read_source', args: { source_id: 'src_1' } },
  expect: { path: 'fresh.status', op: 'eq', value: 'active' },
};

const claims = [
  { claim_id: 'c1', source_id: 's1' },
  { claim_id: 'c2', source_id: 's2' },
  { claim_id: 'c3', source_id: 's3' },
];

describe('expandCitations', () => {
  it('makes one check per element of the list, however long, and keeps a plain check as it is', () => {
    const { checks, malformed } = expandCitations([fixed, perClaim], { args: { claims } });

    expect(malformed).toEqual([]);
    expect(checks[0]).toEqual(fixed);
    expect(checks.slice(1).map((c) => c.read.args)).toEqual([
      { source_id: { $ref: 'args.claims.0.source_id' } },
      { source_id: { $ref: 'args.claims.1.source_id' } },
      { source_id: { $ref: 'args.claims.2.source_id' } },
    ]);
    expect(checks[3]?.description).toBe(
      'the cited source states the claim (args.claims[2] = {"claim_id":"c3","source_id":"s3"})',
    );
  });

  it('binds `cited` to the element and leaves `item` to the predicate it belongs to', () => {
    const scope = { args: { claims } };
    const [, second] = expandCitations([perClaim], scope).checks;

    expect(second?.expect).toEqual({
      some: {
        path: 'fresh.claims',
        where: { path: 'item.claim_id', op: 'eq', value: { $ref: 'args.claims.1.claim_id' } },
      },
    });
    const stated = { ...scope, fresh: { claims: [{ claim_id: 'c2' }] } };
    expect(evaluate(second!.expect, stated)).toBe(true);
    expect(evaluate(second!.expect, { ...scope, fresh: { claims: [{ claim_id: 'c1' }] } })).toBe(
      false,
    );
  });

  it('rebinds `cited` itself, in paths and values, and nothing that merely starts with the word', () => {
    const whole: CitationCheck = {
      description: 'the element is on file',
      each: 'args.claims',
      read: { tool: 'get_answer', args: { claim: { $ref: 'cited' }, other: { $ref: 'citedx' } } },
      expect: { not: { any: [{ path: 'cited', op: 'absent' }] } },
    };
    const [first] = expandCitations([whole], { args: { claims } }).checks;

    expect(first?.read.args).toEqual({
      claim: { $ref: 'args.claims.0' },
      other: { $ref: 'citedx' },
    });
    expect(first?.expect).toEqual({
      not: { any: [{ path: 'args.claims.0', op: 'absent' }] },
    });
  });

  it('makes no check for an absent or empty list', () => {
    expect(expandCitations([perClaim], { args: {} })).toEqual({ checks: [], malformed: [] });
    expect(expandCitations([perClaim], { args: { claims: [] } })).toEqual({
      checks: [],
      malformed: [],
    });
  });

  it('fails closed on a value that is not a list: it is reported, never taken for none', () => {
    const { checks, malformed } = expandCitations([perClaim], {
      args: { claims: { 0: claims[0] } },
    });

    expect(checks).toEqual([]);
    expect(malformed).toEqual([
      'the cited source states the claim: args.claims is not a list (got {"0":{"claim_id":"c1","source_id":"s1"}})',
    ]);
  });
});
