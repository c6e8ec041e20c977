import { describe, expect, it } from 'vitest';
import { matchesAny } from '../../bin/glob.js';
import { optionalSuites } from '../../bin/suite.js';

describe('scenario globs', () => {
  it('select by id or folder, and leave out what a !glob names', () => {
    expect(matchesAny('refunds/full-refund', [])).toBe(true);
    expect(matchesAny('refunds/full-refund', ['refunds'])).toBe(true);
    expect(matchesAny('refunds/full-refund', ['crm/*'])).toBe(false);
    expect(matchesAny('refunds/full-refund', ['!refunds/*'])).toBe(false);
    expect(matchesAny('crm/update-contact', ['!refunds/*'])).toBe(true);
    expect(matchesAny('refunds/full-refund', ['refunds', '!refunds/full-*'])).toBe(false);
    expect(matchesAny('refunds/partial-refund', ['refunds', '!refunds/full-*'])).toBe(true);
  });
});

describe('the τ-bench suites a run builds', () => {
  const folders = (globs: string[]): string[] => [
    ...new Set(optionalSuites(globs).map((s) => s.id.split('/')[0] ?? s.id)),
  ];

  it('builds the test tasks for the default suite and any glob that can name them', () => {
    expect(folders([])).toEqual(['tau-retail']);
    expect(folders(['tau-retail/test-007'])).toEqual(['tau-retail']);
    expect(folders(['*/*'])).toEqual(['tau-retail']);
    expect(folders(['!refunds'])).toEqual(['tau-retail']);
    expect(folders(['!tau-retail/test-007'])).toEqual(['tau-retail']);
  });

  it('builds nothing for globs that cannot name them, or that leave them all out', () => {
    expect(folders(['refunds/*'])).toEqual([]);
    expect(folders(['!tau-retail/*'])).toEqual([]);
    expect(folders(['**', '!tau-retail'])).toEqual([]);
  });

  it('builds the 500 train tasks only when a glob names their folder', () => {
    expect(folders(['**'])).toEqual(['tau-retail']);
    expect(optionalSuites(['tau-retail-train/train-04*']).map((s) => s.id)).toHaveLength(500);
  });
});
