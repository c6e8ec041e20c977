import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readResults, type RunResult } from '../../reports/results.js';
import { EXPECTED_EXPORT } from '../../scenarios/agent-module.js';
import { expectInputError, faultline, faultlineInProcess, ROOT, tempDir } from '../support/cli.js';

/** The README's agent module, run as a user would run it. */
const EXAMPLE = './examples/my-agent.ts';
/** Two scenarios the example's plain loop finishes without faults. */
const TWO = ['refunds/partial-refund', 'crm/update-contact', '--plan', 'none'];

/** What a run's record says that must not depend on how (or in which thread) it was made. */
const gist = (r: RunResult) => ({
  id: r.id,
  agent: r.agent,
  agentVersion: r.agentVersion,
  state: r.state,
  pass: r.pass,
  calls: r.figures.calls,
  effects: r.figures.effects,
});

/** A config file in a folder of its own, naming the example (by a path relative to the file). */
function configWithAgents(): string {
  const dir = tempDir('agents-config');
  const file = join(dir, 'faultline.config.mjs');
  writeFileSync(
    file,
    `export default {
  agents: {
    mine: ${JSON.stringify(relative(dir, join(ROOT, EXAMPLE)))},
    inline: () => ({
      name: 'inline',
      version: '7',
      async start(run) {
        await run.client.listTools();
        return { status: 'completed' };
      },
    }),
  },
  run: { agent: 'mine' },
};
`,
  );
  return file;
}

let serial: RunResult[] = [];
let serialOut = '';

beforeAll(async () => {
  serialOut = join(tempDir('agents'), 'out');
  const ran = await faultlineInProcess(['run', ...TWO, '--agent', EXAMPLE, '--out', serialOut]);
  expect(ran.status, ran.stderr).toBe(0);
  serial = readResults(serialOut).results;
}, 60_000);

describe('--agent ./module.ts', () => {
  it('runs the README example: every record names the agent and its version', () => {
    expect(serial.map(gist)).toEqual([
      expect.objectContaining({
        id: 'my-agent|bounded|refunds/partial-refund|none|0',
        agent: 'my-agent',
        agentVersion: '1.0.0',
        state: 'completed',
        pass: true,
      }),
      expect.objectContaining({ agent: 'my-agent', agentVersion: '1.0.0', pass: true }),
    ]);
    expect(serial[0]?.replay).toBe(
      'npx faultline run refunds/partial-refund --plan none --seed 7 --agent ./examples/my-agent.ts',
    );
  });

  it('show prints the agent and its version', async () => {
    const ran = await faultlineInProcess(['show', 'crm/update-contact/none', '--out', serialOut]);
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/agent +my-agent 1\.0\.0 · mode bounded/);
  }, 120_000);
});

describe('agents in faultline.config', () => {
  it('run.agent names a configured module; workers rebuild it in their own threads', async () => {
    const out = join(tempDir('agents-workers'), 'out');
    const ran = await faultlineInProcess([
      ...['run', ...TWO],
      '--config',
      configWithAgents(),
      '--workers',
      '2',
      '--out',
      out,
    ]);
    expect(ran.status, ran.stderr).toBe(0);
    expect(readResults(out).results.map(gist)).toEqual(serial.map(gist));
  }, 120_000);

  it('an inline agent runs under workers too, and list shows the configured agents', async () => {
    const config = configWithAgents();
    const out = join(tempDir('agents-inline'), 'out');
    const ran = await faultlineInProcess([
      ...['run', 'crm/update-contact', '--plan', 'none', '--trials', '2', '--workers', '2'],
      ...['--agent', 'inline', '--config', config, '--out', out],
    ]);
    // The inline agent does nothing, so the run fails, and is graded like any other.
    expect(ran.status, ran.stderr).toBe(1);
    expect(readResults(out).results.map((r) => [r.agent, r.agentVersion, r.trial])).toEqual([
      ['inline', '7', 0],
      ['inline', '7', 1],
    ]);

    const listed = await faultlineInProcess(['list', '--json', '--config', config]);
    expect(listed.status, listed.stderr).toBe(0);
    const { agents } = JSON.parse(listed.stdout) as {
      agents: { name: string; configured?: string }[];
    };
    expect(agents.slice(-2)).toEqual([
      expect.objectContaining({
        name: 'mine',
        configured: relative(join(config, '..'), join(ROOT, EXAMPLE)),
      }),
      expect.objectContaining({ name: 'inline', configured: 'inline' }),
    ]);
    expect(agents.map((a) => a.name)).toContain('reference');
  }, 120_000);

  it('refuses a configured name that shadows a zoo agent', async () => {
    const dir = tempDir('agents-shadow');
    const file = join(dir, 'faultline.config.mjs');
    writeFileSync(file, `export default { agents: { reference: './mine.ts' } };\n`);
    expectInputError(
      await faultlineInProcess(['run', '--config', file, '--out', join(dir, 'out')]),
      /agents\.reference: "reference" is an agent of the zoo already; give yours a name of its own$/,
      'run',
    );
    expect(existsSync(join(dir, 'out'))).toBe(false);
  }, 120_000);
});

describe('bad agent modules: one line, exit 2, nothing written', () => {
  const fixture = (name: string): string => `./test/fixtures/agents/${name}`;
  it.each([
    ['missing.ts', /--agent \.\/test\/fixtures\/agents\/missing\.ts: no such file/],
    [
      'no-agent.ts',
      new RegExp(
        `no-agent\\.ts: the default export is a number; ${EXPECTED_EXPORT.replace(/[()]/g, '\\$&')}$`,
      ),
    ],
    [
      'throwing-factory.ts',
      /throwing-factory\.ts: the agent factory threw: no API key in the environment$/,
    ],
    [
      'no-start.js',
      /no-start\.js: the default export is an object without start\(\) \(a function\)/,
    ],
  ])(
    '%s',
    async (name, pattern) => {
      const out = join(tempDir('agents-bad'), 'out');
      expectInputError(
        await faultlineInProcess([
          'run',
          'crm/update-contact',
          '--agent',
          fixture(name),
          '--out',
          out,
        ]),
        pattern,
        'run',
      );
      expect(existsSync(out)).toBe(false);
    },
    120_000,
  );
});

describe('a TypeScript agent in a package that is not "type": "module"', () => {
  it('is refused in one line that says why and what to change', () => {
    // npm init's package.json: tsx compiles the agent as CommonJS, and its import of an ES
    // module (faultline, here a stand-in that exports for `import` only) becomes a require.
    const dir = tempDir('agents-cjs');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'mine', type: 'commonjs' }));
    const esm = join(dir, 'node_modules', 'esm-only');
    mkdirSync(esm, { recursive: true });
    writeFileSync(
      join(esm, 'package.json'),
      JSON.stringify({ name: 'esm-only', type: 'module', exports: { import: './index.js' } }),
    );
    writeFileSync(join(esm, 'index.js'), 'export const name = "mine";\n');
    writeFileSync(
      join(dir, 'agent.ts'),
      "import { name } from 'esm-only';\nexport default { name, start: async () => undefined };\n",
    );
    const out = join(dir, 'out');
    // Spawned: how the real binary's loader (tsx) compiles the agent is the point; in this
    // process vitest's loader would compile it as an ES module and hide the refusal.
    expectInputError(
      faultline(['run', 'crm/update-contact', '--agent', join(dir, 'agent.ts'), '--out', out]),
      /agent\.ts loads as CommonJS because .*package\.json does not say "type": "module"; faultline is an ES module: add "type": "module" there, or name the file \.mts\)$/,
      'run',
    );
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});

describe('an agent that never returns', () => {
  it('ends as a graded run-hung, through the real command', async () => {
    const out = join(tempDir('agents-hung'), 'out');
    const ran = await faultlineInProcess([
      ...['run', 'crm/update-contact', '--plan', 'none'],
      ...['--agent', './test/fixtures/agents/never-returns.ts', '--out', out],
    ]);
    expect(ran.status, ran.stderr).toBe(1);
    const [run] = readResults(out).results;
    expect(run?.state).toBe('hung');
    expect(run?.grades.outcome?.findings.map((f) => f.code)).toContain('run-hung');
  }, 120_000);
});

describe('--resume with another agent', () => {
  it('is refused, naming what differs', async () => {
    const out = join(tempDir('agents-resume'), 'out');
    const first = await faultlineInProcess([
      ...['run', 'crm/update-contact', '--plan', 'none'],
      ...['--agent', './test/fixtures/agents/counting-agent.js', '--out', out],
    ]);
    // The agent only lists the tools, so its run fails; the set is made all the same.
    expect(first.status, first.stderr).toBe(1);
    const before = readFileSync(join(out, 'results.jsonl'), 'utf8');

    const ran = await faultlineInProcess([
      ...['run', 'crm/update-contact', '--plan', 'none', '--resume'],
      ...['--agent', EXAMPLE, '--out', out],
    ]);

    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('--agent counting (this resume: my-agent)');
    expect(ran.stderr).toMatch(
      /agent module \S+counting-agent\.js \(this resume: \S+my-agent\.ts\)/,
    );
    expect(ran.stderr).toMatch(/agent version [0-9a-f]{12} \(this resume: 1\.0\.0\)/);
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8')).toBe(before);
  }, 120_000);
});

describe('matrix and explore take a module agent', () => {
  it('matrix --agent ./module.ts', async () => {
    const ran = await faultlineInProcess([
      ...['matrix', 'crm/update-contact', '--agent', EXAMPLE, '--json'],
      ...['--out', join(tempDir('agents-matrix'), 'out')],
    ]);
    expect(ran.stderr).not.toMatch(/Error/);
    // Progress lines come first when stdout is not a terminal; the JSON follows them.
    const json = ran.stdout.slice(ran.stdout.indexOf('\n{') + 1);
    expect((JSON.parse(json) as { agents: string[] }).agents).toEqual(['my-agent']);
  }, 120_000);

  it('explore --agent ./module.ts', async () => {
    const dir = tempDir('agents-explore');
    const ran = await faultlineInProcess([
      ...['explore', 'crm/update-contact', '--agent', EXAMPLE, '--runs', '2', '--seed', '1'],
      ...['--out', join(dir, 'out'), '--regressions', join(dir, 'regressions')],
    ]);
    expect(ran.stderr).not.toMatch(/Error/);
    expect(ran.stdout).toContain('exploring crm/update-contact with my-agent');
  }, 120_000);
});
