import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlReporter } from '../../reports/html.js';
import { usageText } from '../../reports/model-usage.js';
import { readResults, type RunResult } from '../../reports/results.js';
import { tempDir } from '../support/cli.js';
import {
  chromiumMissing,
  chromiumRequired,
  findChromium,
  launchChromium,
} from '../support/chromium.js';
import { HOSTILE_REPLY, runWithModel } from '../support/model-runs.js';

/**
 * The model transcript of the HTML report in headless Chromium: a real run whose agent called
 * its model four times (a tool call, a reply with planted markup under a model fault, a long
 * reply, a rate-limited call) opens in the browser with every network request blocked. Without
 * Chromium the suite is skipped with a note — unless CI=true, where a missing browser fails it.
 */

/** The little of the DOM the in-page callbacks touch (the project compiles without DOM types). */
interface DomElement {
  readonly textContent: string | null;
  setAttribute(name: string, value: string): void;
}

const chromium = findChromium();
const skip = chromium.path === null && !chromiumRequired();
if (skip) console.warn(`html.transcript.browser.test.ts skipped: ${chromiumMissing(chromium)}`);

describe.skipIf(skip)('HTML model transcript in Chromium', () => {
  let dir = '';
  let run: RunResult;
  let browser: Browser | undefined;
  let page: Page;
  const blocked: string[] = [];
  const errors: string[] = [];
  const call = (n: number): string => `#run-0-model-call-${n}`;

  beforeAll(async () => {
    if (chromium.path === null) throw new Error(`CI=true: ${chromiumMissing(chromium)}`);
    dir = tempDir('html-transcript');
    const out = join(dir, 'set');
    await runWithModel(out);
    const { results } = readResults(out);
    const [only] = results;
    if (!only) throw new Error('the run with a model is missing');
    run = only;
    const file = join(dir, htmlReporter.file);
    writeFileSync(
      file,
      htmlReporter.render(
        {
          results,
          k: 1,
          trajectory: (r): unknown => JSON.parse(readFileSync(join(out, r.trajectoryFile), 'utf8')),
        },
        { color: false },
      ),
    );
    browser = await launchChromium(chromium.path);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) await route.continue();
      else {
        blocked.push(url);
        await route.abort();
      }
    });
    page = await context.newPage();
    page.setDefaultTimeout(5_000);
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${pathToFileURL(file).href}#run=${encodeURIComponent(run.id)}`);
    await page.waitForSelector('html[data-viewer="ready"]');
    await page.waitForSelector('#run-0', { state: 'visible' });
    await page.$$eval('#run-0 details', (all: DomElement[]) => {
      for (const d of all) d.setAttribute('open', '');
    });
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the run’s model and usage on its page and in the summary', async () => {
    const usage = usageText(run.figures);
    expect(usage).toMatch(/^4 model calls · 600 in \/ 255 out tokens · \$0\.00405 · /);
    const head = await page.innerText('#run-0 .run-head');
    expect(head).toContain('openai:gpt-test · prompt sha256:0123456789ab · temperature 0 · seed 7');
    expect(head).toContain(usage);
    expect(await page.textContent('#model-usage')).toContain(`model usage of 1 run: ${usage}`);
  });

  it('shows each call’s tokens, cost, latency, fault and error', async () => {
    expect(await page.$$eval('#run-0 .model-call', (calls) => calls.length)).toBe(4);
    const second = await page.innerText(`${call(2)} > header`);
    for (const part of [
      'model call #2',
      'openai:gpt-test',
      '180 in / 40 out tokens',
      '$0.00085',
      '650ms',
      'fault: invalid-output: reply garbled',
    ])
      expect(second).toContain(part);
    const fourth = await page.innerText(call(4));
    expect(fourth).toContain('error: rate_limited');
    expect(fourth).toContain('Rate limit reached for requests');
  });

  it('shows the messages sent, rebuilt from the deltas, and the tool calls', async () => {
    const first = await page.innerText(`${call(1)} .sent`);
    expect(first).toContain('You settle refunds.');
    expect(first).toContain('Refund order ord_1 in full.');
    expect(first).not.toContain('earlier message');
    expect(await page.innerText(`${call(1)} .received`)).toContain(
      'tool call lookup_order call_1 {"order_id":"ord_1"}',
    );
    // Call 3 sent the first four messages again: folded, but there in full.
    const earlier = await page.innerText(`${call(3)} .earlier`);
    expect(earlier).toContain('+4 earlier messages (sent again unchanged)');
    expect(earlier).toContain('You settle refunds.');
    expect(earlier).toContain('tool result lookup_order call_1 {"order_id":"ord_1","total":42}');
    const added = await page.$$eval(`${call(3)} .sent > ol.msgs > li`, (items: DomElement[]) =>
      items.map((i) => i.textContent?.replace(/\s+/g, ' ').trim()),
    );
    expect(added).toHaveLength(2);
    expect(added[1]).toBe('user Summarise what you did.');
  });

  it('shows a model’s markup as text and never runs it', async () => {
    expect(await page.innerText(`${call(2)} .received`)).toContain(HOSTILE_REPLY);
    expect(
      await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned),
    ).toBeUndefined();
    expect(await page.$$eval('img', (imgs) => imgs.length)).toBe(0);
    expect(await page.$$eval('script', (s) => s.length)).toBe(2);
  });

  it('cuts a long reply and says how much it left out', async () => {
    const reply = await page.innerText(`${call(3)} .reply-text`);
    expect(reply).toMatch(/…⟨3\d\d more characters not shown⟩$/);
  });

  it('made no network request and logged no error', () => {
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });
});
