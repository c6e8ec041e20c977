import { beforeAll, describe, expect, it } from 'vitest';
import { renderJunit } from '../../reports/junit.js';
import { type RunResult } from '../../reports/results.js';
import { makeResultSet } from '../support/result-sets.js';
import { tempDir } from '../support/cli.js';

/**
 * The no-reconcile mutant under the lost-ack plans of the partial refund (two trials each: it
 * fails the email's lost acknowledgement) and of the CRM contact update (one plan, two trials).
 */
let results: RunResult[];

beforeAll(async () => {
  results = await makeResultSet(tempDir('junit'), {
    globs: ['refunds/partial-refund', 'crm/update-contact'],
    agent: 'no-reconcile',
    trials: 2,
  });
});

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * A strict reader for the XML subset a JUnit report uses (declaration, elements, attributes
 * in double quotes, text, the five named entities and numeric references). Throws on anything
 * not well-formed: unbalanced or crossed tags, a bare `<` or `&`, a duplicate attribute, a
 * character XML 1.0 does not allow, text outside the root.
 */
function parseXml(xml: string): XmlElement {
  const illegal = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.exec(xml);
  if (illegal) throw new Error(`illegal character U+${illegal[0].codePointAt(0)?.toString(16)}`);
  const decode = (s: string): string => {
    if (/[<]/.test(s)) throw new Error(`bare < in ${JSON.stringify(s)}`);
    return s.replace(/&([^;]*);|&/g, (whole, ref: string | undefined) => {
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
      if (ref === undefined) throw new Error(`bare & in ${JSON.stringify(s)}`);
      if (ref in named) return named[ref]!;
      const code = /^#(\d+)$/.exec(ref)?.[1] ?? /^#x([0-9a-f]+)$/i.exec(ref)?.[1];
      if (code === undefined) throw new Error(`unknown entity ${whole}`);
      return String.fromCodePoint(ref.startsWith('#x') ? parseInt(code, 16) : Number(code));
    });
  };
  let rest = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  const root: XmlElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack = [root];
  const NAME = '[A-Za-z_][\\w.-]*';
  const tag = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}="[^"]*")*)\\s*(/?)>`);
  while (rest.length > 0) {
    const top = stack.at(-1)!;
    const lt = rest.indexOf('<');
    if (lt !== 0) {
      const chunk = lt === -1 ? rest : rest.slice(0, lt);
      if (stack.length === 1 && chunk.trim() !== '') throw new Error('text outside the root');
      top.text += decode(chunk);
      rest = rest.slice(chunk.length);
      continue;
    }
    const m = tag.exec(rest);
    if (!m) throw new Error(`malformed tag at ${JSON.stringify(rest.slice(0, 40))}`);
    const [whole, closing, name, attrs, selfClosing] = m;
    rest = rest.slice(whole.length);
    if (closing) {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attrs!.matchAll(new RegExp(`(${NAME})="([^"]*)"`, 'g'))) {
      if (key! in attributes) throw new Error(`duplicate attribute ${key}`);
      attributes[key!] = decode(value!);
    }
    const element: XmlElement = { name: name!, attributes, children: [], text: '' };
    top.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new Error(`<${stack.at(-1)!.name}> never closed`);
  if (root.children.length !== 1) throw new Error('not exactly one root element');
  return root.children[0]!;
}

function all(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((c) => [...(c.name === name ? [c] : []), ...all(c, name)]);
}

describe('the junit reporter', () => {
  it('writes well-formed XML: a suite per scenario, a test case per run', () => {
    const doc = parseXml(renderJunit({ results }));

    expect(doc.name).toBe('testsuites');
    expect(doc.attributes).toMatchObject({
      tests: String(results.length),
      failures: '4',
      errors: '0',
    });
    const suites = all(doc, 'testsuite');
    expect(suites.map((s) => s.attributes['name'])).toEqual([
      'refunds/partial-refund',
      'crm/update-contact',
    ]);
    expect(suites.map((s) => [s.attributes['tests'], s.attributes['failures']])).toEqual([
      ['4', '2'],
      ['2', '2'],
    ]);
    expect(all(doc, 'testcase').map((c) => c.attributes['name'])).toEqual(
      results.map((r) => `${r.scenarioId} / ${r.faultPlanId} / trial ${r.trial}`),
    );
  });

  it('names the class after the world and times each case by its wall time', () => {
    const cases = all(parseXml(renderJunit({ results })), 'testcase');

    expect(cases.map((c) => c.attributes['classname'])).toEqual(
      results.map((r) => `faultline.${r.world}`),
    );
    expect(cases.map((c) => c.attributes['time'])).toEqual(
      results.map((r) => (r.figures.wallMs / 1000).toFixed(3)),
    );
  });

  it('gives a failing run one failure per failing core dimension, with codes and replay', () => {
    const doc = parseXml(renderJunit({ results }));
    const failing = results.filter((r) => !r.pass);
    const cases = all(doc, 'testcase');

    expect(failing.map((r) => r.faultPlanId)).toEqual([
      'message-ack-lost',
      'message-ack-lost',
      'note-ack-lost',
      'note-ack-lost',
    ]);
    for (const r of failing) {
      const c = cases[results.indexOf(r)]!;
      const failures = all(c, 'failure');
      expect(failures.map((f) => f.attributes['type'])).toEqual([
        'outcome',
        'integrity',
        'recovery',
      ]);
      const recovery = failures[2]!;
      expect(recovery.attributes['message']).toBe('recovery: unreconciled-retry');
      expect(recovery.text).toContain('unreconciled-retry: ');
      expect(recovery.text).toContain(`replay: ${r.replay}`);
      expect(all(c, 'system-out')[0]!.text).toContain(`seed ${r.seed}`);
    }
    const passing = cases.filter((_, i) => results[i]!.pass);
    expect(passing.flatMap((c) => all(c, 'failure'))).toEqual([]);
    expect(all(doc, 'failure')).toHaveLength(12);
  });

  it('escapes markup and drops characters XML 1.0 does not allow', () => {
    const hostile = '<script>alert("x")</script> & \'q\' \u0000\u001b[2J\ufffe\ud800 ok\r\nend';
    const run = structuredClone(results.find((r) => !r.pass)!);
    run.grades.recovery!.findings[0]!.message = hostile;
    run.world = 'a"b<c>\nd';
    run.faultPlanId = 'plan\twith & tab';
    run.replay = 'npx faultline run x --note "</failure><injected/>"';

    const xml = renderJunit({ results: [run] });
    const doc = parseXml(xml);

    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('<injected/>');
    expect(xml).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;q&apos;');
    const c = all(doc, 'testcase')[0]!;
    expect(c.attributes['classname']).toBe('faultline.a"b<c>\nd');
    expect(c.attributes['name']).toBe(`${run.scenarioId} / plan\twith & tab / trial ${run.trial}`);
    const recovery = all(c, 'failure').find((f) => f.attributes['type'] === 'recovery')!;
    expect(recovery.text).toContain(
      'unreconciled-retry: <script>alert("x")</script> & \'q\' [2J ok\r\nend',
    );
    expect(recovery.text).toContain('replay: npx faultline run x --note "</failure><injected/>"');
  });

  it('is checked by a reader that refuses what is not well-formed', () => {
    expect(() => parseXml('<a><b></a></b>')).toThrow('</a> closes <b>');
    expect(() => parseXml('<a>&</a>')).toThrow('bare &');
    expect(() => parseXml('<a>&nbsp;</a>')).toThrow('unknown entity');
    expect(() => parseXml('<a>\u0001</a>')).toThrow('illegal character');
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow('duplicate attribute');
    expect(() => parseXml('<a x="<"/>')).toThrow('bare <');
    expect(() => parseXml('<a>')).toThrow('never closed');
    expect(parseXml('<a x="&#10;"><b/>t</a>')).toMatchObject({
      attributes: { x: '\n' },
      text: 't',
    });
  });

  it('writes an empty report for no runs', () => {
    const doc = parseXml(renderJunit({ results: [] }));

    expect(doc.attributes['tests']).toBe('0');
    expect(doc.children).toEqual([]);
  });
});
