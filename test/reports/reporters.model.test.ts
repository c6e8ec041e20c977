import { describe, expect, it } from 'vitest';
import { jsonReport, reportSchema, renderJson } from '../../reports/json.js';
import { renderJunit } from '../../reports/junit.js';
import { modelRecord } from '../support/model-runs.js';
import { runRecord } from '../support/result-sets.js';

/** Hand-made records with exact usage under two prompts, and one run without a model. */
const promptA = {
  id: 'openai:gpt-test',
  promptHash: 'sha256:aaaaaaaaaaaa',
  temperature: 0,
  seed: 7,
};
const promptB = { ...promptA, promptHash: 'sha256:bbbbbbbbbbbb' };
const runs = [
  modelRecord(
    { trial: 0 },
    { modelCalls: 2, inputTokens: 300, outputTokens: 55, costUsd: 0.0013, modelLatencyMs: 1000 },
    promptA,
  ),
  modelRecord(
    { trial: 1, fail: { outcome: ['state-mismatch'] } },
    { modelCalls: 1, inputTokens: 1000, outputTokens: 5, costUsd: 0.0001, modelLatencyMs: 250 },
    promptB,
  ),
  runRecord({ scenarioId: 'refunds/partial-refund' }),
].map((r, index) => ({ ...r, index }));

describe('JSON report with a model', () => {
  it('sums model usage for the suite and per model and prompt', () => {
    const report = reportSchema.parse(JSON.parse(renderJson({ results: runs, k: 1 })));
    expect(report.modelUsage).toEqual({
      total: {
        runs: 2,
        modelCalls: 3,
        inputTokens: 1300,
        outputTokens: 60,
        costUsd: 0.0014,
        modelLatencyMs: 1250,
      },
      byModel: [
        {
          ...promptA,
          runs: 1,
          modelCalls: 2,
          inputTokens: 300,
          outputTokens: 55,
          costUsd: 0.0013,
          modelLatencyMs: 1000,
        },
        {
          ...promptB,
          runs: 1,
          modelCalls: 1,
          inputTokens: 1000,
          outputTokens: 5,
          costUsd: 0.0001,
          modelLatencyMs: 250,
        },
      ],
    });
    expect(report.results[0]?.figures.inputTokens).toBe(300);
  });

  it('has no modelUsage when no run had a model', () => {
    expect(jsonReport({ results: [runRecord()], k: 1 })).not.toHaveProperty('modelUsage');
  });
});

describe('JUnit XML with a model', () => {
  const xml = renderJunit({ results: runs });

  it('carries suite totals as properties of <testsuites>', () => {
    const head = xml.split('\n').slice(1, 12).join('\n');
    expect(head).toBe(
      [
        '<testsuites name="faultline" tests="3" failures="1" errors="0" skipped="0" time="0.000">',
        '  <properties>',
        '    <property name="model" value="openai:gpt-test"/>',
        '    <property name="model.promptHash" value="sha256:aaaaaaaaaaaa"/>',
        '    <property name="model.promptHash" value="sha256:bbbbbbbbbbbb"/>',
        '    <property name="model.calls" value="3"/>',
        '    <property name="model.inputTokens" value="1300"/>',
        '    <property name="model.outputTokens" value="60"/>',
        '    <property name="model.costUsd" value="0.0014"/>',
        '    <property name="model.latencyMs" value="1250"/>',
        '  </properties>',
      ].join('\n'),
    );
  });

  it('gives each run with a model its own properties, and a run without one none', () => {
    const passing = xml.slice(xml.indexOf('trial 0'), xml.indexOf('</testcase>'));
    expect(passing).toContain('<property name="model.promptHash" value="sha256:aaaaaaaaaaaa"/>');
    expect(passing).toContain('<property name="model.calls" value="2"/>');
    expect(xml).toMatch(
      /<testcase name="refunds\/partial-refund \/ none \/ trial 0" classname="faultline.refunds" time="0.000"\/>/,
    );
    // The partial refund's suite had no model: no properties there.
    const partial = xml.slice(xml.indexOf('<testsuite name="refunds/partial-refund"'));
    expect(partial).not.toContain('<properties>');
  });

  it('names the model and its usage in a failing run’s output', () => {
    expect(xml).toContain(
      'model openai:gpt-test · prompt sha256:bbbbbbbbbbbb · temperature 0 · seed 7 · 1 model call · 1,000 in / 5 out tokens · $0.0001 · 250ms model latency',
    );
  });

  it('is unchanged when no run had a model', () => {
    expect(renderJunit({ results: [runRecord()] })).not.toContain('propert');
  });
});
