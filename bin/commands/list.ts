import { parseArgs } from 'node:util';
import { FAULT_LAYER, NO_FAULTS, type FaultKind } from '../../faults/catalog.js';
import { ZOO } from '../../scenarios/agents/zoo.js';
import { COVERAGE_BAR, faultCoverage, meetsCoverageBar } from '../../scenarios/library/coverage.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { WORLDS } from '../../scenarios/library/worlds.js';
import { loadScenarioFile } from '../../scenarios/load.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { configFile, loadConfig } from '../config.js';
import { matchesAny } from '../glob.js';
import type { Io } from '../io.js';
import {
  knownIds,
  knownScenarios,
  optionalSuiteSummaries,
  type OptionalSuiteSummary,
} from '../suite.js';
import { UsageError } from '../usage-error.js';

export const LIST_HELP = `Usage: faultline list [GLOB...] [options]

Lists what faultline can run: the scenarios by world (id, title, consequence tier, and each
fault plan with the fault kinds it injects), the fault kinds with their coverage (how many
scenarios in how many worlds inject each), the agents of the zoo, and the agents the config
names (its agents map). With no GLOB, the hand-written library, and the suites built from
τ-bench one line each; with globs, the scenarios they select, as faultline run selects them.

Arguments:
  GLOB               scenario ids to list, as faultline run takes them: refunds/*,
                     'tau-retail/*' (its tasks one by one), '!tickets/*' to leave some out

Options:
  --json             print the same as JSON
  --scenarios FILE   also list scenarios from FILE (.ts/.js module or .json); repeatable
  --config FILE      configuration (default: faultline.config.ts, if it exists)
  -h, --help         show this help

Exit codes: 0 listed, 2 bad arguments.`;

/** What each fault kind does to a run, in one line. */
export const FAULT_KIND_DESCRIPTIONS = {
  timeout: 'the call never answers within the agent’s timeout',
  transient: 'the call fails with a temporary error; trying again later succeeds',
  'rate-limit': 'the tool refuses calls until its retry-after has passed',
  'malformed-reply': 'the reply does not match the tool’s output schema',
  unavailable: 'a dependency is down for a window of virtual time',
  'lost-ack': 'the world applies the write, but its reply never arrives',
  'duplicate-delivery': 'the request reaches the world twice',
  'late-reply': 'the reply arrives after the agent has moved on',
  'revoked-permission': 'the run may no longer call a tool',
  'expired-credential': 'the run’s credential stops working',
  'stale-record': 'a record changes between the agent’s read and its write',
  'hostile-document': 'retrieved content carries planted instructions',
  'unapplied-write': 'the world acknowledges a write as applied, but drops the change',
  'missing-evidence': 'a read returns nothing where evidence should be',
  'conflicting-evidence': 'a read returns values that contradict the rest of the evidence',
  'approval-denied': 'the person asked for an approval says no',
  'approval-delayed': 'the approval comes, but much later',
  cancellation: 'the operator cancels the run midway',
  'invalid-output': 'the model’s structured output does not validate',
  'context-compaction': 'the model’s context is compacted mid-run',
  'model-swap': 'the model or prompt is swapped mid-run',
  crash: 'the process dies at a named boundary and restarts',
} as const satisfies Record<FaultKind, string>;

/** The catalogue as data: what `--json` prints and the text view renders. */
export interface Listing {
  worlds: {
    name: string;
    description: string;
    /** The fault kinds this world's scenarios inject, in catalogue order. */
    faultKinds: FaultKind[];
    scenarios: {
      id: string;
      title: string;
      tier: string;
      workflowClass: string;
      faultPlans: { id: string; description: string; faultKinds: string[] }[];
    }[];
  }[];
  /** Each kind with the scenarios and worlds that inject it, and whether that meets the bar. */
  faultKinds: {
    kind: FaultKind;
    layer: string;
    description: string;
    scenarios: string[];
    worlds: string[];
    meetsBar: boolean;
  }[];
  /** The zoo's agents, then the config's (`configured`: what its agents map says). */
  agents: { name: string; description: string; configured?: string }[];
  /** The suites built from τ-bench, summarised (with no glob; a glob lists their tasks instead). */
  suites: OptionalSuiteSummary[];
}

export async function listCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals: globs } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      scenarios: { type: 'string', multiple: true },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(LIST_HELP);
    return 0;
  }
  const known = globs.length === 0 ? [...BUILT_IN_SCENARIOS] : knownScenarios(globs);
  for (const file of values.scenarios ?? []) known.push(...(await loadScenarioFile(file)));
  const scenarios = known.filter((s) => matchesAny(s.id, globs));
  if (scenarios.length === 0)
    throw new UsageError(
      `no scenario matches ${globs.join(', ')} (known: ${knownIds(known.map((s) => s.id))})`,
    );
  const config = await loadConfig(values.config);
  const listing = listingOf(scenarios, configured(config.agents, configFile(values.config)));
  if (globs.length === 0) listing.suites = optionalSuiteSummaries();
  io.out(values.json ? JSON.stringify(listing, null, 2) : renderListing(listing));
  return 0;
}

/** Scenarios grouped by world in the order they are first met; worlds, kinds and agents. */
export function listingOf(
  scenarios: readonly Scenario[],
  configuredAgents: Listing['agents'] = [],
): Listing {
  const worlds = new Map<string, Listing['worlds'][number]>();
  for (const s of scenarios) {
    const name = s.world.name;
    let world = worlds.get(name);
    if (!world) {
      world = {
        name,
        description: Object.hasOwn(WORLDS, name) ? (WORLDS[name]?.description ?? '') : '',
        faultKinds: [],
        scenarios: [],
      };
      worlds.set(name, world);
    }
    world.scenarios.push({
      id: s.id,
      title: s.title,
      tier: s.tier,
      workflowClass: s.workflowClass,
      faultPlans: [NO_FAULTS, ...s.faultPlans].map((p) => ({
        id: p.id,
        description: p.description,
        faultKinds: [...new Set(p.faults.map((f) => f.kind))],
      })),
    });
  }
  const coverage = faultCoverage(scenarios);
  for (const world of worlds.values())
    world.faultKinds = coverage.filter((c) => c.worlds.includes(world.name)).map((c) => c.kind);
  return {
    worlds: [...worlds.values()],
    faultKinds: coverage.map((c) => ({
      kind: c.kind,
      layer: FAULT_LAYER[c.kind],
      description: FAULT_KIND_DESCRIPTIONS[c.kind],
      scenarios: c.scenarios,
      worlds: c.worlds,
      meetsBar: meetsCoverageBar(c),
    })),
    agents: [
      ...ZOO.map((a) => ({ name: a.name, description: a.description })),
      ...configuredAgents,
    ],
    suites: [],
  };
}

/** The config's agents as the listing shows them: where each comes from. */
function configured(
  agents: Readonly<Record<string, unknown>>,
  file: string | undefined,
): Listing['agents'] {
  return Object.entries(agents).map(([name, entry]) => {
    const where = typeof entry === 'string' ? entry : 'inline';
    return {
      name,
      description: `configured in ${file ?? 'the config'}: ${where}`,
      configured: where,
    };
  });
}

function renderListing(listing: Listing): string {
  const scenarioCount = listing.worlds.reduce((n, w) => n + w.scenarios.length, 0);
  const worldCount = listing.worlds.length;
  const lines = [
    `Scenarios (${scenarioCount} in ${worldCount} world${worldCount === 1 ? '' : 's'})`,
  ];
  for (const world of listing.worlds) {
    lines.push('', `${world.name}${world.description ? ` — ${world.description}` : ''}`);
    lines.push(
      `  ${world.scenarios.length} scenario(s); faults: ${world.faultKinds.join(', ') || 'none'}`,
    );
    const idWidth = Math.max(...world.scenarios.map((s) => s.id.length));
    const planWidth = Math.max(
      ...world.scenarios.flatMap((s) => s.faultPlans.map((p) => p.id.length)),
    );
    for (const s of world.scenarios) {
      lines.push(`  ${s.id.padEnd(idWidth)}  ${s.title} (tier ${s.tier}, ${s.workflowClass})`);
      for (const p of s.faultPlans) {
        const kinds = p.faultKinds.length > 0 ? p.faultKinds.join(', ') : 'no faults';
        const note = p.description && p.id !== NO_FAULTS.id ? ` — ${p.description}` : '';
        lines.push(`      ${p.id.padEnd(planWidth)}  ${kinds}${note}`);
      }
    }
  }
  if (listing.suites.length > 0) {
    const globWidth = Math.max(...listing.suites.map((x) => x.glob.length));
    lines.push('', `Suites built from τ-bench (faultline list 'tau-retail/*' lists its tasks)`);
    for (const x of listing.suites) {
      const plans =
        x.faultPlans === null
          ? ''
          : `, ${x.faultPlans.toLocaleString('en-US')} derived fault plans`;
      const when = x.defaultSuite ? 'in the default suite' : 'only when a glob names them';
      lines.push(`  ${x.glob.padEnd(globWidth)}  ${x.tasks} ${x.description}${plans} (${when})`);
    }
  }
  const kindWidth = Math.max(...listing.faultKinds.map((k) => k.kind.length));
  const below = listing.faultKinds.filter((k) => !k.meetsBar).length;
  lines.push(
    '',
    `Fault kinds (${listing.faultKinds.length}) with coverage: scenarios/worlds injecting each` +
      ` (bar: ${COVERAGE_BAR.scenarios} scenarios in ${COVERAGE_BAR.worlds} worlds; ${below === 0 ? 'all meet it' : `${below} below it, marked !`})`,
  );
  for (const k of listing.faultKinds) {
    const count = `${k.scenarios.length}/${k.worlds.length}`.padStart(5);
    lines.push(
      `  ${k.kind.padEnd(kindWidth)}  ${k.layer.padEnd(8)} ${count}${k.meetsBar ? ' ' : '!'}  ${k.description}`,
    );
  }
  const agentWidth = Math.max(...listing.agents.map((a) => a.name.length));
  lines.push('', `Agents (${listing.agents.length})`);
  for (const a of listing.agents) lines.push(`  ${a.name.padEnd(agentWidth)}  ${a.description}`);
  return lines.join('\n');
}
