import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import createAiSdkAgent from '../../examples/ai-sdk-agent.js';
import createLangGraphAgent from '../../examples/langgraph-agent.js';
import { compareResults, renderComparison } from '../../reports/compare.js';
import { readResults } from '../../reports/results.js';
import { assignVip } from '../../scenarios/library/tickets/assign-vip.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { tmpOut } from '../support/trial-harness.js';
import { CRASH_AFTER_SECOND_WRITE, NO_FAULTS, runSet } from './result-set.js';

const out = tmpOut();
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

describe('compare between the two examples', () => {
  it('pairs their runs, names both agents, and shows the checkpoint fixing recovery after a crash', async () => {
    const scenarios = [partialRefund, assignVip];
    const plans = [NO_FAULTS, CRASH_AFTER_SECOND_WRITE];
    for (const [name, agent, module] of [
      ['ai-sdk', createAiSdkAgent, './examples/ai-sdk-agent.ts'],
      ['langgraph', createLangGraphAgent, './examples/langgraph-agent.ts'],
    ] as const) {
      await runSet({ agent, module, scenarios, plans, outDir: out, out: join(out, name) });
    }
    const a = readResults(join(out, 'ai-sdk')).results;
    const b = readResults(join(out, 'langgraph')).results;

    const comparison = compareResults(a, b);
    const text = renderComparison(comparison, { color: false });

    expect(comparison.pairs).toBe(4);
    expect(comparison.a.agents).toEqual(['ai-sdk-example']);
    expect(comparison.b.agents).toEqual(['langgraph-example']);
    expect(comparison.a.agentVersions).toEqual([{ name: 'ai-sdk-example', version: '1.0.0' }]);
    expect(comparison.b.agentVersions).toEqual([{ name: 'langgraph-example', version: '1.0.0' }]);
    expect(comparison.agentChanged).toBe(true);
    // Black-box agents: no policy gate of their own to report; the scenarios' contracts are the same.
    expect(comparison.versions.filter((v) => v.changed).map((v) => v.aspect)).toEqual(['agent']);
    expect(comparison.versions.find((v) => v.aspect === 'policy')?.a).toEqual(['none']);
    expect(text).toContain('A: 4 run(s), agent ai-sdk-example 1.0.0');
    expect(text).toContain('B: 4 run(s), agent langgraph-example 1.0.0');
    expect(text).toContain(
      'What differs between A and B:\n  agent  ai-sdk-example 1.0.0 → langgraph-example 1.0.0\n',
    );
    const recovery = comparison.rows.find((r) => r.row === 'recovery');
    // Both crashed runs: the AI SDK agent redoes the confirmed write, the graph resumes.
    expect(recovery).toMatchObject({ a: { passed: 2 }, b: { passed: 4 }, gained: 2, lost: 0 });
    expect(text).toMatch(/recovery \*\s+│ 50%\s+│ 100%\s+│ \+50 pp/);
  });
});
