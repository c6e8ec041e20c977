import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { NO_FAULTS, type FaultPlan } from '../../faults/catalog.js';
import { formatDuration } from '../../reports/duration.js';
import { runPassed } from '../../reports/graded.js';
import { REPORTERS, reporter } from '../../reports/reporters.js';
import { ResultsWriter, writeFileAtomic } from '../../reports/results.js';
import { validateFaultPlan } from '../../scenarios/engine.js';
import { loadScenarioFile, worldOf } from '../../scenarios/load.js';
import { runScenario } from '../../scenarios/runner.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { ServeSession } from '../../scenarios/serve-session.js';
import { ScaledWallClock } from '../../scenarios/wall-clock.js';
import { FolderLock } from '../folder-lock.js';
import type { Io } from '../io.js';
import { checkOutputFolder } from '../output-folder.js';
import { commitPendingSet, openPendingSet } from '../pending-set.js';
import { listenHttp } from '../serve-http.js';
import { caseResult, knownScenarios, type SuiteCase } from '../suite.js';
import { UsageError } from '../usage-error.js';

/** Wall milliseconds per virtual millisecond unless `--time-scale` says otherwise. */
export const DEFAULT_TIME_SCALE = 0.01;
/** Seconds without a message from the client before the session ends, unless `--idle` says. */
export const DEFAULT_IDLE_S = 300;
/** The environment variable that fixes the HTTP bearer token (else a random one is printed). */
export const TOKEN_ENV = 'FAULTLINE_TOKEN';

export const SERVE_HELP = `Usage: faultline serve SCENARIO (--stdio | --port N) [options]

Serves a scenario's seeded world, under one of its fault plans, as an MCP server for any MCP
client in any language. When the session ends, the run is graded from the world's ledger, the
wire log and the operator log (black-box: the client keeps no records faultline reads) and
written as a result set of one run, which show, compare, promote and the HTML report read.

Arguments:
  SCENARIO             a scenario id, e.g. refunds/partial-refund (faultline list shows them)

Transport (one of):
  --stdio              MCP over stdin/stdout: the client spawns this command. stdout carries
                       MCP only; everything else goes to stderr. The session is authorised by
                       whoever spawned the process.
  --port N             Streamable HTTP on http://127.0.0.1:N/mcp (0: any free port). Prints
                       "faultline serve: listening on URL (Authorization: Bearer TOKEN)";
                       every request must send that header (401 otherwise). ${TOKEN_ENV}
                       fixes the token instead of a random one.

Options:
  --plan ID            the fault plan to inject (default: none, the fault-free run)
  --seed N             world seed, 0 to 2^53 - 1 (default: the scenario's own)
  --time-scale X       wall ms per virtual ms, 0 < X ≤ 1 (default ${DEFAULT_TIME_SCALE}): every delay
                       the run imposes (late replies, approval waits, rate-limit and outage
                       windows, the run's time budget) passes in delay × X of wall time, and
                       the client's own waits count as wall / X of virtual time. At 0.01 a
                       120 s late reply takes 1.2 s and a 6 h budget 3 min 36 s.
  --idle S             end the session after S seconds without a message from the client
                       and no call in flight (default ${DEFAULT_IDLE_S})
  --out DIR            result set folder (default: .faultline/serve); the session's set
                       replaces the one there
  --scenarios FILE     also load scenarios from FILE (.ts/.js module or .json); repeatable
  --reporter NAME      ${Object.keys(REPORTERS).join('|')}; repeatable (default: table);
                       files go to --out
  -h, --help           show this help

The session ends when the client closes it (stdin closed; HTTP DELETE of the session), after
--idle, on SIGINT or SIGTERM, or when the run's time is up (twice its virtual time budget).
The run's clock starts when the client has initialized. The agent recorded is the client's
clientInfo (name and version).

Exit codes: 0 the run passed, 1 it failed (or no client connected), 2 bad arguments.`;

export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      stdio: { type: 'boolean', default: false },
      port: { type: 'string' },
      plan: { type: 'string' },
      seed: { type: 'string' },
      'time-scale': { type: 'string' },
      idle: { type: 'string' },
      out: { type: 'string' },
      scenarios: { type: 'string', multiple: true },
      reporter: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(SERVE_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      `expected one scenario id (got ${positionals.length === 0 ? 'none' : positionals.join(' ')}); faultline list shows them`,
    );
  const id = positionals[0] ?? '';
  if (values.stdio === (values.port !== undefined))
    throw new UsageError(
      'choose one transport: --stdio (the client spawns faultline) or --port N (Streamable HTTP)',
    );
  const port = whole('--port', values.port, 0, 65_535);
  const seedGiven = whole('--seed', values.seed, 0, Number.MAX_SAFE_INTEGER);
  const idleS = whole('--idle', values.idle, 1, 86_400) ?? DEFAULT_IDLE_S;
  const scale = timeScale(values['time-scale']);
  const out = values.out ?? join('.faultline', 'serve');
  checkOutputFolder(out, '--out');
  const chosen = (values.reporter ?? ['table']).map((name) => reporter(name));
  const scenarioFiles = values.scenarios ?? [];
  const scenario = await findScenario(id, scenarioFiles);
  const plan = findPlan(scenario, values.plan ?? NO_FAULTS.id);
  validateFaultPlan(scenario, plan, worldOf(scenario));
  const child = plan.faults.findIndex((f) => f.kind === 'crash' && f.mode === 'child');
  if (child >= 0)
    throw new UsageError(
      `fault plan ${plan.id}: faults[${child}] crashes the agent as a child process faultline starts; a served client is a process of its own, which faultline cannot kill (serve another plan)`,
    );
  const seed = seedGiven ?? scenario.world.seed;
  const token = values.stdio ? '' : (process.env[TOKEN_ENV] ?? randomBytes(24).toString('hex'));
  if (!values.stdio && token === '')
    throw new UsageError(`${TOKEN_ENV} is set but empty: unset it, or give it a token`);

  // In stdio mode stdout is the client's: every line of ours goes to stderr.
  const say = (text: string): void => {
    if (values.stdio) io.err(text);
    else io.out(text);
  };
  const lock = FolderLock.take(out, 'serve');
  const scratch = mkdtempSync(join(tmpdir(), 'faultline-serve-'));
  const clock = new ScaledWallClock(scale);
  const session = new ServeSession({
    instructions: instructionsFor(scenario),
    clock,
    idleMs: idleS * 1000,
  });
  const interrupt = (signal: string) => () => {
    session.end(`interrupted (${signal})`);
  };
  const onInt = interrupt('SIGINT');
  const onTerm = interrupt('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  let closeTransport = (): Promise<void> => Promise.resolve();
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= closeTransport());
  try {
    const budget = scenario.contract.budgets.virtualTimeMs;
    const heading = `faultline serve: ${scenario.id} / ${plan.id} · seed ${seed} · time-scale ${scale} (the ${formatDuration(budget)} budget is ${formatDuration(budget * scale)} of wall time)`;
    if (values.stdio) {
      const stdin = process.stdin;
      const onEnd = (): void => {
        session.end('the client closed stdin');
      };
      stdin.once('end', onEnd);
      await session.connect(new StdioServerTransport(stdin, process.stdout));
      closeTransport = () => {
        stdin.off('end', onEnd);
        // Nothing more will be read; an open stdin would keep the process alive.
        stdin.destroy();
        return Promise.resolve();
      };
      say(`${heading}\nfaultline serve: serving MCP on stdio`);
    } else {
      // The HTTP server (the SDK's streamable HTTP transport, over Hono) loads only here.
      const { StreamableHTTPServerTransport } =
        await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
      });
      await session.connect(transport);
      const endpoint = await listenHttp(transport, { port: port ?? 0, token });
      closeTransport = () => endpoint.close();
      say(heading);
      say(
        `faultline serve: listening on ${endpoint.url} (Authorization: Bearer ${process.env[TOKEN_ENV] === undefined ? token : `$${TOKEN_ENV}`})`,
      );
    }
    const run = await runScenario(scenario, {
      outDir: scratch,
      agent: () => session,
      faultPlan: plan,
      seed,
      clock,
      // A live client takes the time it takes; the session's own ends bound it.
      wallLimitMs: Number.POSITIVE_INFINITY,
    });
    clock.stop();
    await close();
    if (!session.connected) {
      io.err(
        `faultline serve: no MCP client completed initialize before the session ended (${session.endReason ?? 'ended'}); nothing to grade, nothing written`,
      );
      return 1;
    }
    const agent = session.name;
    const mode = scenario.contract.autonomy;
    const transportWords = values.stdio ? '--stdio' : `--port ${port ?? 0}`;
    const c: SuiteCase = {
      index: 0,
      id: `${agent}|${mode}|${scenario.id}|${plan.id}|0`,
      scenario,
      faultPlan: plan,
      trial: 0,
      seed,
      mode,
      replay: `npx faultline serve ${scenario.id} --plan ${plan.id} --seed ${seed} --time-scale ${scale} ${transportWords}`,
    };
    const { result, trajectory } = caseResult(c, { name: agent, version: session.version }, run);
    const pending = openPendingSet(
      out,
      {
        agent,
        agentModule: null,
        agentVersion: session.version,
        mode: null,
        faults: 'all',
        plan: plan.id,
        trials: 1,
        seed,
        globs: [scenario.id],
        shard: null,
        scenarios: scenarioFiles.map((f) => resolve(f)),
        regressions: '',
        // A served agent brings its own model, out of faultline's sight.
        model: null,
        promptHash: null,
        temperature: null,
        modelSeed: null,
      },
      false,
    );
    const writer = new ResultsWriter(pending.dir, { fresh: false });
    try {
      writer.append(result, trajectory);
    } finally {
      writer.close();
    }
    commitPendingSet(out);

    const passed = runPassed(result);
    say(
      `[1/1] ${passed ? 'ok  ' : 'FAIL'} ${result.scenarioId} / ${result.faultPlanId} → ${result.state} (${formatDuration(result.figures.virtualMs)} virtual) · ${agent}${session.version === '' ? '' : ` ${session.version}`} · ${session.endReason ?? ''}`,
    );
    for (const r of chosen) {
      const text = r.render(
        { results: [result], k: 1, trajectory: () => trajectory, notApplicable: [] },
        { color: io.color && !values.stdio },
      );
      if (r.name === 'table') say(text);
      else {
        writeFileAtomic(join(out, r.file), text);
        say(`${r.name} report: ${join(out, r.file)}`);
      }
    }
    say(
      `${formatDuration(result.figures.virtualMs)} virtual in ${(result.figures.wallMs / 1000).toFixed(2)} s · results in ${join(out, 'results.jsonl')}`,
    );
    return passed ? 0 : 1;
  } finally {
    clock.stop();
    session.end('serve stopped');
    await close();
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    rmSync(scratch, { recursive: true, force: true });
    lock.release();
  }
}

/** What the client is told at initialize: the objective, the run's input and how to finish. */
function instructionsFor(scenario: Scenario): string {
  return [
    scenario.contract.objective,
    `Input: ${JSON.stringify(scenario.input)}`,
    'End the session when you are done: the run is graded from what the world shows.',
  ].join('\n');
}

export async function findScenario(id: string, files: readonly string[]): Promise<Scenario> {
  const known = knownScenarios([id]);
  for (const file of files) known.push(...(await loadScenarioFile(file)));
  const found = known.find((s) => s.id === id);
  if (!found)
    throw new UsageError(
      `unknown scenario "${id}" (faultline list shows them; e.g. ${known
        .slice(0, 3)
        .map((s) => s.id)
        .join(', ')})`,
    );
  return found;
}

function findPlan(scenario: Scenario, id: string): FaultPlan {
  if (id === NO_FAULTS.id) return NO_FAULTS;
  const plan = scenario.faultPlans.find((p) => p.id === id);
  if (!plan)
    throw new UsageError(
      `--plan: ${scenario.id} has no fault plan "${id}" (plans: ${[NO_FAULTS.id, ...scenario.faultPlans.map((p) => p.id)].join(', ')})`,
    );
  return plan;
}

function timeScale(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIME_SCALE;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 1)
    throw new UsageError(
      `--time-scale must be a number above 0 and at most 1: wall ms per virtual ms (got "${value}")`,
    );
  return n;
}

/** A whole-number option in [min, max], or undefined when absent. */
export function whole(
  name: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw new UsageError(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
  return Number(value);
}
