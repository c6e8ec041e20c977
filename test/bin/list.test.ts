import { beforeAll, describe, expect, it } from 'vitest';
import { FAULT_KINDS } from '../../faults/catalog.js';
import { ZOO } from '../../scenarios/agents/zoo.js';
import { faultCoverage, meetsCoverageBar } from '../../scenarios/library/coverage.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { loadTasks, tauRetailScenarios } from '../../scenarios/library/tau-retail/index.js';
import { faultlineInProcess, type Ran } from '../support/cli.js';

interface Listing {
  worlds: {
    name: string;
    description: string;
    faultKinds: string[];
    scenarios: {
      id: string;
      title: string;
      tier: string;
      faultPlans: { id: string; faultKinds: string[] }[];
    }[];
  }[];
  faultKinds: {
    kind: string;
    layer: string;
    description: string;
    scenarios: string[];
    worlds: string[];
    meetsBar: boolean;
  }[];
  agents: { name: string; description: string }[];
  suites: {
    glob: string;
    description: string;
    tasks: number;
    faultPlans: number | null;
    defaultSuite: boolean;
  }[];
}

describe('faultline list', () => {
  let ran: Ran;
  beforeAll(async () => {
    ran = await faultlineInProcess(['list']);
  });

  it('exits 0 with nothing on stderr', () => {
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
  });

  it('lists every built-in scenario under its world, with its tier and fault plans', () => {
    const worlds = [...new Set(BUILT_IN_SCENARIOS.map((s) => s.world.name))];
    expect(ran.stdout).toContain(
      `Scenarios (${BUILT_IN_SCENARIOS.length} in ${worlds.length} worlds)`,
    );
    for (const s of BUILT_IN_SCENARIOS) {
      const heading = ran.stdout.indexOf(`\n${s.world.name} — `);
      const line = new RegExp(`^  ${s.id} +${escape(s.title)} \\(tier ${s.tier}, `, 'm');
      expect(ran.stdout).toMatch(line);
      expect(ran.stdout.search(line)).toBeGreaterThan(heading);
      for (const p of s.faultPlans) {
        const kinds = [...new Set(p.faults.map((f) => f.kind))].join(', ');
        expect(ran.stdout).toMatch(new RegExp(`^ {6}${p.id} +${escape(kinds)} — `, 'm'));
      }
    }
  });

  it('lists every fault kind with its layer, coverage and a description, and every agent of the zoo', () => {
    for (const c of faultCoverage(BUILT_IN_SCENARIOS)) {
      const mark = meetsCoverageBar(c) ? ' ' : '!';
      const count = `${c.scenarios.length}/${c.worlds.length}`;
      expect(ran.stdout).toMatch(
        new RegExp(`^  ${c.kind} +\\w+ +${count}${escape(mark)}  \\S`, 'm'),
      );
    }
    for (const agent of ZOO)
      expect(ran.stdout).toMatch(
        new RegExp(`^  ${agent.name} +${escape(agent.description)}$`, 'm'),
      );
    expect(ran.stdout).toMatch(
      /^ {2}lost-ack +wire +\d+\/\d+[ !] {2}the world applies the write, but its reply never arrives$/m,
    );
  });
});

describe('faultline list: the τ-bench suites', () => {
  it('shows each τ-bench suite as one line: its tasks, the test tasks’ plans, whether it runs by default', async () => {
    const ran = await faultlineInProcess(['list']);
    const test = tauRetailScenarios('test');
    const plans = test.reduce((n, s) => n + s.faultPlans.length, 0);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(
      new RegExp(
        `^ {2}tau-retail/\\* +${test.length} τ-bench retail test tasks, ${plans.toLocaleString('en-US')} derived fault plans \\(in the default suite\\)$`,
        'm',
      ),
    );
    expect(ran.stdout).toMatch(
      new RegExp(
        `^ {2}tau-retail-train/\\* +${loadTasks('train').length} τ-bench retail train tasks \\(only when a glob names them\\)$`,
        'm',
      ),
    );
    // Summarised, not listed task by task.
    expect(ran.stdout).not.toContain('tau-retail/test-000');
  });

  it('lists the tasks a glob names, each with its fault plans, and nothing else', async () => {
    const ran = await faultlineInProcess(['list', 'tau-retail/*']);
    const test = tauRetailScenarios('test');

    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout).toContain(`Scenarios (${test.length} in 1 world)`);
    for (const s of test) expect(ran.stdout).toMatch(new RegExp(`^  ${s.id} `, 'm'));
    expect(ran.stdout).toMatch(/^ {6}lost-ack-\S+ +lost-ack — /m);
    expect(ran.stdout).not.toContain('refunds/partial-refund');
    expect(ran.stdout).not.toMatch(/^ {2}tau-retail-train\/\* /m);
  });

  it('takes globs as run does: a folder, and ! to leave out', async () => {
    const ran = await faultlineInProcess(['list', 'refunds', '!refunds/partial-refund', '--json']);
    const listing = JSON.parse(ran.stdout) as Listing;

    expect(ran.status).toBe(0);
    expect(listing.worlds.flatMap((w) => w.scenarios.map((s) => s.id))).toEqual(
      BUILT_IN_SCENARIOS.filter(
        (s) => s.id.startsWith('refunds/') && s.id !== 'refunds/partial-refund',
      ).map((s) => s.id),
    );
    expect(listing.suites).toEqual([]);
  });

  it('refuses a glob that matches nothing, naming what is known', async () => {
    const ran = await faultlineInProcess(['list', 'nope/*']);

    expect(ran.status).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(ran.stderr).toMatch(
      /^faultline list: no scenario matches nope\/\* \(known: .*refunds\/partial-refund.*tau-retail-train\/\* \(τ-bench retail train tasks\)\)/,
    );
  });
});

describe('faultline list --json', () => {
  it('prints the same catalogue as JSON', async () => {
    const ran = await faultlineInProcess(['list', '--json']);

    expect(ran.status).toBe(0);
    const listing = JSON.parse(ran.stdout) as Listing;
    expect(listing.worlds.map((w) => w.name)).toEqual([
      ...new Set(BUILT_IN_SCENARIOS.map((s) => s.world.name)),
    ]);
    expect(listing.worlds.every((w) => w.description !== '')).toBe(true);
    expect(listing.worlds.flatMap((w) => w.scenarios.map((s) => s.id))).toEqual(
      BUILT_IN_SCENARIOS.map((s) => s.id),
    );
    const partial = listing.worlds[0]!.scenarios.find((s) => s.id === 'refunds/partial-refund')!;
    expect(partial.faultPlans[0]).toEqual({ id: 'none', description: 'no faults', faultKinds: [] });
    expect(partial.faultPlans.find((p) => p.id === 'message-flaky')?.faultKinds).toEqual([
      'transient',
      'rate-limit',
    ]);
    expect(listing.faultKinds.map((k) => k.kind)).toEqual([...FAULT_KINDS]);
    const lostAck = listing.faultKinds.find((k) => k.kind === 'lost-ack')!;
    expect(lostAck.scenarios).toContain('refunds/partial-refund');
    expect(lostAck.worlds).toEqual(expect.arrayContaining(['refunds', 'crm']));
    expect(lostAck.meetsBar).toBe(true);
    expect(listing.worlds[0]!.faultKinds).toContain('lost-ack');
    expect(listing.faultKinds.every((k) => k.description.length > 10)).toBe(true);
    expect(listing.agents).toEqual(ZOO.map((a) => ({ name: a.name, description: a.description })));
    expect(listing.suites.map((x) => [x.glob, x.defaultSuite])).toEqual([
      ['tau-retail/*', true],
      ['tau-retail-train/*', false],
    ]);
    expect(listing.suites[0]!.faultPlans).toBeGreaterThan(listing.suites[0]!.tasks);
    expect(listing.suites[1]!.faultPlans).toBeNull();
  });
});

describe('faultline list, bad usage', () => {
  it('exits 2 with one line on stderr for an unknown option or a glob that matches nothing', async () => {
    for (const args of [['--bogus'], ['refundz']]) {
      const ran = await faultlineInProcess(['list', ...args]);
      expect(ran.status).toBe(2);
      expect(ran.stdout).toBe('');
      expect(ran.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(ran.stderr).toMatch(/^faultline list: /);
    }
  });

  it('prints its help and exits 0', async () => {
    const ran = await faultlineInProcess(['list', '--help']);

    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/^Usage: faultline list \[GLOB\.\.\.\] \[options\]/);
    expect(ran.stdout).toContain('--json');
  });

  it('is listed in the command overview', async () => {
    expect((await faultlineInProcess(['--help'])).stdout).toMatch(/^ {2}list +list the scenarios/m);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
