import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../runtime/errors.js';
import {
  EXPECTED_EXPORT,
  agentFactory,
  loadAgentModule,
  moduleVersion,
} from '../../scenarios/agent-module.js';
import { runTrial } from '../../scenarios/engine.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { tempDir } from '../support/cli.js';

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/agents/${name}`, import.meta.url));

describe('loadAgentModule', () => {
  it('loads a TypeScript module through tsx and calls its factory once per agent asked for', async () => {
    const factory = await loadAgentModule(
      fileURLToPath(new URL('../../examples/my-agent.ts', import.meta.url)),
    );

    const first = await factory();
    const second = await factory();

    expect(first.name).toBe('my-agent');
    expect(first.version).toBe('1.0.0');
    expect(second).not.toBe(first);
  });

  it('hands out an exported object as is, every time', async () => {
    const factory = await loadAgentModule(fixture('counting-agent.js'));

    expect(await factory()).toBe(await factory());
  });

  it('takes an async factory', async () => {
    const file = join(tempDir('agent-module'), 'async-agent.mjs');
    writeFileSync(
      file,
      "export default async () => ({ name: 'later', start: async () => ({ status: 'completed' }) });\n",
    );

    expect((await (await loadAgentModule(file))()).name).toBe('later');
  });

  it.each([
    ['no-agent.ts', `the default export is a number; ${EXPECTED_EXPORT}`],
    [
      'no-start.js',
      `the default export is an object without start() (a function); ${EXPECTED_EXPORT}`,
    ],
  ])('refuses %s, naming the file and what was expected', async (name, issue) => {
    const file = fixture(name);

    await expect(loadAgentModule(file)).rejects.toThrow(
      new InvalidInputError(`agent ${file}`, [issue]),
    );
  });

  it('refuses a factory that throws, with its message', async () => {
    const file = fixture('throwing-factory.ts');
    const factory = await loadAgentModule(file);

    await expect(factory()).rejects.toThrow(
      `Invalid agent ${file}: the agent factory threw: no API key in the environment`,
    );
  });

  it('refuses a factory that returns no agent', async () => {
    const factory = agentFactory(() => ({ start: () => Promise.resolve() }), 'agent x.ts');

    await expect(factory()).rejects.toThrow(
      `Invalid agent x.ts: the agent factory returned an object without name (a non-empty string); ${EXPECTED_EXPORT}`,
    );
  });

  it('refuses a module that cannot be loaded, naming it', async () => {
    const file = join(tempDir('agent-module'), 'broken.ts');
    writeFileSync(file, 'export default {\n');

    await expect(loadAgentModule(file)).rejects.toThrow(`Invalid agent ${file}: cannot be loaded:`);
  });
});

describe('a module agent under runTrial', () => {
  it('runs from an async factory, a fresh agent per trial, judged by the world', async () => {
    const file = fileURLToPath(new URL('../../examples/my-agent.ts', import.meta.url));
    const factory = await loadAgentModule(file);
    const scenario = BUILT_IN_SCENARIOS.find((s) => s.id === 'crm/update-contact')!;
    const built: unknown[] = [];
    const agent = async () => {
      const made = await factory();
      built.push(made);
      return made;
    };

    const first = await runTrial({ scenario, agent, agentModule: file, outDir: tempDir('mod') });
    const second = await runTrial({ scenario, agent, agentModule: file, outDir: tempDir('mod') });

    expect(first.trajectory.agent).toBe('my-agent');
    expect(first.trajectory.outcome.state).toBe('completed');
    expect([first.asExpected, second.asExpected]).toEqual([true, true]);
    expect(built).toHaveLength(2);
    expect(built[1]).not.toBe(built[0]);
  });
});

describe('moduleVersion', () => {
  it('is a short hash of the file: the same bytes, the same version; others, another', () => {
    const dir = tempDir('agent-version');
    const a = join(dir, 'a.ts');
    const b = join(dir, 'b.ts');
    writeFileSync(a, 'export default 1;\n');
    writeFileSync(b, 'export default 2;\n');

    expect(moduleVersion(a)).toMatch(/^[0-9a-f]{12}$/);
    expect(moduleVersion(a)).toBe(moduleVersion(a));
    expect(moduleVersion(b)).not.toBe(moduleVersion(a));
  });
});
