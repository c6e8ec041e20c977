import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { reportSchema } from '../../reports/json.js';
import {
  reporter,
  REPORTERS,
  UnknownReporterError,
  type ReportInput,
} from '../../reports/reporters.js';
import { makeResultSet } from '../support/result-sets.js';
import { tempDir } from '../support/cli.js';

let input: ReportInput;

beforeAll(async () => {
  const out = tempDir('reporters');
  const results = await makeResultSet(out, { agent: 'no-reconcile' });
  input = {
    results,
    k: 1,
    trajectory: (r) => JSON.parse(readFileSync(join(out, r.trajectoryFile), 'utf8')) as unknown,
  };
});

describe('the reporter registry', () => {
  it('holds table, json, junit and html, each under its own name, each with its own file', () => {
    expect(Object.keys(REPORTERS)).toEqual(['table', 'json', 'junit', 'html']);
    for (const [name, r] of Object.entries(REPORTERS)) {
      expect(r.name).toBe(name);
      expect(r.description).not.toBe('');
      expect(r.description).not.toContain('\n');
    }
    expect(Object.values(REPORTERS).map((r) => r.file)).toEqual([
      'report.txt',
      'report.json',
      'report.xml',
      'report.html',
    ]);
  });

  it('renders each report from the same input, the same way every time', () => {
    for (const r of Object.values(REPORTERS)) {
      const first = r.render(input, { color: false });
      expect(first.length).toBeGreaterThan(0);
      expect(r.render(input, { color: false })).toBe(first);
      expect(first).not.toContain('\u001b[');
    }
  });

  it('renders what each format promises', () => {
    const [failed] = input.results.filter((r) => !r.pass);

    expect(reporter('table').render(input, { color: false })).toContain(
      `replay: ${failed!.replay}`,
    );
    expect(
      reportSchema.parse(JSON.parse(reporter('json').render(input, { color: true }))).results,
    ).toEqual(input.results);
    expect(reporter('junit').render(input, { color: false })).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="faultline" tests="2" failures="1" /,
    );
  });

  it('finds a reporter by name and refuses an unknown one in one line naming the known', () => {
    expect(reporter('junit')).toBe(REPORTERS['junit']);
    expect(() => reporter('xml')).toThrow(UnknownReporterError);
    expect(() => reporter('xml')).toThrow(
      'unknown reporter "xml" (reporters: table, json, junit, html)',
    );
    // Names of Object's own members are not reporters either.
    expect(() => reporter('toString')).toThrow(UnknownReporterError);
    expect(() => reporter('__proto__')).toThrow(UnknownReporterError);
  });
});
