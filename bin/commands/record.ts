import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  createCassette,
  type CassetteSession,
  type CassetteSource,
  type RecordedTool,
} from '../../recordings/cassette.js';
import { InteractionLog } from '../../recordings/interaction-log.js';
import { modelCassettePath } from '../../recordings/model-cassette.js';
import { checkRecordedSession, writeRecordedSession } from '../../recordings/record-session.js';
import { RecordingProxy } from '../../recordings/recording-proxy.js';
import { RecordingTransport } from '../../recordings/recording-transport.js';
import { redactUrl } from '../../recordings/redact.js';
import { AUTONOMY_MODES, type AutonomyMode } from '../../runtime/contract.js';
import { ZOO } from '../../scenarios/agents/zoo.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { ScaledWallClock } from '../../scenarios/wall-clock.js';
import { liveTransport, type LiveTarget } from '../../scenarios/world/live-world.js';
import { FolderLock } from '../folder-lock.js';
import type { Io } from '../io.js';
import { MODEL_OPTIONS } from '../model-options.js';
import { checkOutputFolder } from '../output-folder.js';
import { prepareAgent, recordAgentSession } from '../record-agent.js';
import { listenHttp } from '../serve-http.js';
import { liveTargetFromFlags } from '../live-target.js';
import { UsageError } from '../usage-error.js';
import { DEFAULT_IDLE_S, findScenario, TOKEN_ENV, whole } from './serve.js';

/** Where recordings go unless `--out` says. */
export const DEFAULT_RECORDINGS = 'recordings';

export const RECORD_HELP = `Usage: faultline record SCENARIO (--server "CMD ARGS…" | --url URL)
                        (--agent NAME|PATH | --stdio | --port N) [options]

Puts a recording proxy between an agent and a live MCP server. Every tools/list and tools/call
is recorded with its reply, its error, or its absence (a call that got no reply: unanswered,
with how long the agent waited), and a model agent's model calls with it; secrets redacted.
Each session is one cassette in --out, listed in --out/index.json: a folder of recordings is a
suite that faultline run --replay DIR replays.

Arguments:
  SCENARIO             the scenario the session is a case of (its objective, contract,
                       blueprint and input; faultline list shows them): a library id, or one
                       from --scenarios FILE

Live server (one of):
  --server "CMD ARGS…" a command that serves MCP on its stdio, split into words as a shell
                       would (quotes kept, nothing expanded); it gets faultline's environment
  --server-arg ARG     one more argument for --server, taken verbatim; repeatable
  --url URL            a Streamable HTTP MCP endpoint
  --header 'N: V'      an HTTP header sent with every request to --url (Authorization, say);
                       repeatable; never written to a cassette

Agent (one of):
  --agent NAME|PATH    an agent faultline runs, as faultline run takes it: a zoo agent (${ZOO.map(
    (a) => a.name,
  )
    .slice(0, 3)
    .join(', ')}, …),
                       a name from the config's agents, or a module; it works on the SCENARIO
                       against the live server
  --stdio              front for an MCP client that spawns this command: stdout carries MCP
                       only, everything else goes to stderr
  --port N             front on Streamable HTTP at http://127.0.0.1:N/mcp (0: any free port),
                       each request authorised by "Authorization: Bearer TOKEN" (printed;
                       ${TOKEN_ENV} fixes it)

Options:
  --out DIR            the recordings folder (default: ${DEFAULT_RECORDINGS}/); made if absent
  --run-id ID          the session's run id (default: SCENARIO#LIVE-PLAN#0); the cassette is
                       named from it (refunds/partial-refund#none#0 →
                       refunds__partial-refund.none.0.json)
  --force              replace a session of the same run id already in --out
  --live-plan ID       the fault plan the live server runs under, when it is faultline serve
                       --plan ID (default: none); recorded as the session's fault plan
  --verdict pass|fail  whether the session did the job, as you judged it (default: unknown);
                       replay judges outcome only against a pass
  --mode MODE          the autonomy mode the agent runs in: ${AUTONOMY_MODES.join('|')}
                       (default: the scenario's)
  --time-scale X       wall ms per virtual ms of the agent's clock, 0 < X ≤ 1 (default 1, the
                       live server's own time); match faultline serve's --time-scale when that
                       is the live server. Unanswered waits are recorded in this clock.
  --idle S             (--stdio, --port) end the session after S seconds without a message
                       from the client and no call in flight (default ${DEFAULT_IDLE_S})
  --scenarios FILE     also load scenarios from FILE (.ts/.js module or .json); repeatable
  --config FILE        configuration (default: faultline.config.ts, if it exists)
  --model PROVIDER:MODEL, --prompt FILE, --temperature T, --model-seed N
                       a model agent's model, as for faultline run; its calls are recorded to
                       a cassette in --record-model DIR (default: --out/models)
  --record-model DIR   where the model cassettes go (default: --out/models)
  -h, --help           show this help

One line per session goes to stderr; the summary names the cassette, its tool calls and how
many went unanswered. A session ends when the agent returns, the client closes it (stdin
closed; HTTP DELETE), after --idle, on SIGINT or SIGTERM, or when the live server goes away.
A recording holds a lock on --out while it writes; its index is rewritten atomically.

Exit codes: 0 recorded, 1 nothing recorded (no client connected, or the live server went
away before), 2 bad arguments.`;

/** What `--verdict` may say. */
const VERDICTS = ['pass', 'fail'] as const;

export async function recordCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      server: { type: 'string' },
      'server-arg': { type: 'string', multiple: true },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      agent: { type: 'string' },
      stdio: { type: 'boolean', default: false },
      port: { type: 'string' },
      out: { type: 'string' },
      'run-id': { type: 'string' },
      force: { type: 'boolean', default: false },
      'live-plan': { type: 'string' },
      verdict: { type: 'string' },
      mode: { type: 'string' },
      'time-scale': { type: 'string' },
      idle: { type: 'string' },
      scenarios: { type: 'string', multiple: true },
      config: { type: 'string' },
      model: MODEL_OPTIONS.model,
      prompt: MODEL_OPTIONS.prompt,
      temperature: MODEL_OPTIONS.temperature,
      'model-seed': MODEL_OPTIONS['model-seed'],
      'record-model': MODEL_OPTIONS['record-model'],
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(RECORD_HELP);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      `expected one scenario id, the case the session records (got ${positionals.length === 0 ? 'none' : positionals.join(' ')}); faultline list shows them`,
    );
  const target = liveTargetOf(values);
  const fronts = [values.agent !== undefined, values.stdio, values.port !== undefined].filter(
    Boolean,
  ).length;
  if (fronts !== 1)
    throw new UsageError(
      'choose one agent side: --agent NAME|PATH (faultline runs it), --stdio or --port N (an MCP client connects)',
    );
  const front = values.agent === undefined;
  if (front) {
    const modelFlag = (
      ['model', 'prompt', 'temperature', 'model-seed', 'record-model', 'config'] as const
    ).find((f) => values[f] !== undefined);
    if (modelFlag !== undefined)
      throw new UsageError(
        `--${modelFlag}: only for an agent faultline runs (--agent); a client on --stdio or --port brings its own`,
      );
  } else if (values.idle !== undefined)
    throw new UsageError(
      '--idle: only for a client on --stdio or --port (--agent returns when done)',
    );
  const port = whole('--port', values.port, 0, 65_535);
  const idleS = whole('--idle', values.idle, 1, 86_400) ?? DEFAULT_IDLE_S;
  const scale = timeScale(values['time-scale']);
  const verdict = verdictOf(values.verdict);
  const livePlan = values['live-plan'] ?? 'none';
  if (livePlan.trim() === '') throw new UsageError('--live-plan must name a fault plan (or none)');
  const mode = values.mode;
  if (mode !== undefined && !(AUTONOMY_MODES as readonly string[]).includes(mode))
    throw new UsageError(`--mode must be one of ${AUTONOMY_MODES.join(', ')} (got "${mode}")`);
  const out = values.out ?? DEFAULT_RECORDINGS;
  checkOutputFolder(out, '--out', false);
  const found = await findScenario(positionals[0] ?? '', values.scenarios ?? []);
  const scenario: Scenario =
    mode === undefined
      ? found
      : { ...found, contract: { ...found.contract, autonomy: mode as AutonomyMode } };
  const runId = values['run-id'] ?? `${scenario.id}#${livePlan}#0`;
  if (runId.trim() === '') throw new UsageError('--run-id must not be empty');
  // The folder checked before the session runs: a malformed index, or this run id recorded.
  await checkRecordedSession(out, runId, { force: values.force });
  const prepared =
    values.agent === undefined
      ? undefined
      : await prepareAgent(values.agent, values, values['record-model'] ?? join(out, 'models'));
  const token =
    values.port === undefined ? '' : (process.env[TOKEN_ENV] ?? randomBytes(24).toString('hex'));
  if (values.port !== undefined && token === '')
    throw new UsageError(`${TOKEN_ENV} is set but empty: unset it, or give it a token`);

  // In stdio mode stdout is the client's: every line of ours goes to stderr.
  const say = (text: string): void => {
    if (values.stdio) io.err(text);
    else io.out(text);
  };
  const fresh = !existsSync(out);
  const lock = FolderLock.take(out, 'record');
  const clock = new ScaledWallClock(scale);
  const log = new InteractionLog();
  const started = performance.now();
  const recordedAt = new Date().toISOString();
  try {
    const session = !prepared
      ? await recordFront({
          target,
          clock,
          log,
          idleMs: idleS * 1000,
          stdio: values.stdio,
          port: port ?? 0,
          token,
          say,
          io,
        })
      : await recordAgentSession({ prepared, target: target.live, scenario, runId, clock, log });
    if (session === undefined) return 1;
    const modelCassette =
      session.modelDir === undefined
        ? null
        : relative(out, modelCassettePath(session.modelDir, runId)).split('\\').join('/');
    const sessionBlock: CassetteSession = {
      runId,
      scenario: JSON.parse(JSON.stringify(scenario)) as Record<string, unknown>,
      faultPlanId: livePlan,
      mode: scenario.contract.autonomy,
      agent: session.agent,
      outcome: session.outcome,
      verdict,
      verdictSource: verdict === null ? null : '--verdict',
      modelCassette,
      wallMs: Math.round(performance.now() - started),
    };
    const cassette = createCassette({
      recordedAt,
      source: target.source,
      ...(session.server === undefined ? {} : { server: session.server }),
      tools: session.tools,
      interactions: log.interactions(),
      session: sessionBlock,
    });
    const written = await writeRecordedSession(out, cassette, { force: values.force });
    const { entry } = written;
    io.err(
      `[1/1] recorded ${scenario.id} · ${session.agent.name}${session.agent.version === '' ? '' : ` ${session.agent.version}`} → ${session.outcome.state}${session.outcome.detail === null ? '' : ` (${session.outcome.detail})`}`,
    );
    say(
      `${written.path}: ${entry.toolCalls} tool call(s), ${entry.unanswered} unanswered · index ${out}/index.json (${written.index.sessions.length} session(s))`,
    );
    return 0;
  } finally {
    clock.stop();
    lock.release();
    // A folder the lock made for a session that wrote nothing is not left behind.
    if (fresh && readdirSync(out).length === 0) rmSync(out, { recursive: true, force: true });
  }
}

/** What one recorded session gives back besides the interactions in the log. */
export interface RecordedSessionParts {
  readonly agent: { name: string; version: string };
  readonly outcome: CassetteSession['outcome'];
  readonly server: { name: string; version: string } | undefined;
  readonly tools: RecordedTool[];
  /** The model cassette folder, when a model agent's calls were recorded. */
  readonly modelDir?: string;
}

interface FrontOptions {
  readonly target: ParsedLive;
  readonly clock: ScaledWallClock;
  readonly log: InteractionLog;
  readonly idleMs: number;
  readonly stdio: boolean;
  readonly port: number;
  readonly token: string;
  readonly say: (text: string) => void;
  readonly io: Io;
}

/**
 * An external MCP client's session, recorded: the client talks to the front (stdio or
 * Streamable HTTP) and every message goes through the recorder to the live server. Undefined
 * when no client initialized (nothing to write).
 */
async function recordFront(options: FrontOptions): Promise<RecordedSessionParts | undefined> {
  const { clock, io } = options;
  const recorder = new RecordingTransport(
    (await liveTransport(options.target.live)).transport,
    options.log,
    {
      clock: () => clock.now(),
    },
  );
  const stdin = process.stdin;
  // The HTTP server (the SDK's streamable HTTP transport, over Hono) loads only without --stdio.
  const frontTransport = options.stdio
    ? new StdioServerTransport(stdin, process.stdout)
    : new (
        await import('@modelcontextprotocol/sdk/server/streamableHttp.js')
      ).StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  const proxy = new RecordingProxy(frontTransport, recorder);
  try {
    await proxy.start();
  } catch (error) {
    await proxy.close();
    throw new UsageError(
      `${options.target.flag}: could not start the live server (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  clock.start();
  const onEnd = (): void => {
    void proxy.close('the client closed stdin');
  };
  const interrupt = (signal: string) => () => {
    void proxy.close(`interrupted (${signal})`);
  };
  const onInt = interrupt('SIGINT');
  const onTerm = interrupt('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const idle = setInterval(
    () => {
      if (proxy.inFlight === 0 && Date.now() - proxy.lastMessage > options.idleMs)
        void proxy.close(`no message from the client for ${options.idleMs / 1000} s`);
    },
    Math.min(1000, options.idleMs),
  );
  let endpoint: { close(): Promise<void> } | undefined;
  try {
    if (frontTransport instanceof StdioServerTransport) {
      stdin.once('end', onEnd);
      options.say(`faultline record: recording ${options.target.label} for a client on stdio`);
    } else {
      const http = await listenHttp(frontTransport, { port: options.port, token: options.token });
      endpoint = http;
      options.say(
        `faultline record: listening on ${http.url} (Authorization: Bearer ${process.env[TOKEN_ENV] === undefined ? options.token : `$${TOKEN_ENV}`}), recording ${options.target.label}`,
      );
    }
    const reason = await proxy.ended;
    await proxy.close(reason);
    if (!proxy.connected) {
      io.err(
        `faultline record: no MCP client completed initialize before the session ended (${reason}); nothing written`,
      );
      return undefined;
    }
    return {
      agent: proxy.client ?? { name: 'mcp-client', version: '' },
      outcome: { state: 'ended', stopReason: null, detail: reason },
      server: recorder.server,
      tools: [...recorder.tools.values()],
    };
  } finally {
    clearInterval(idle);
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    await proxy.close();
    if (options.stdio) {
      stdin.off('end', onEnd);
      // Nothing more will be read; an open stdin would keep the process alive.
      stdin.destroy();
    }
    await endpoint?.close();
  }
}

/** The live side as the command line gave it. */
interface ParsedLive {
  readonly live: LiveTarget;
  /** What the cassette says it was recorded from (no header, secret query parameters redacted). */
  readonly source: CassetteSource;
  /** The flag that named it, for messages. */
  readonly flag: '--server' | '--url';
  /** How it is named in messages. */
  readonly label: string;
}

function liveTargetOf(values: {
  server?: string | undefined;
  'server-arg'?: string[] | undefined;
  url?: string | undefined;
  header?: string[] | undefined;
}): ParsedLive {
  if (values.server === undefined && values.url === undefined)
    throw new UsageError(
      'choose one live server: --server "CMD ARGS…" (a stdio command) or --url URL (Streamable HTTP)',
    );
  if (values.server === undefined && values['server-arg'] !== undefined)
    throw new UsageError('--server-arg: only with --server');
  const target = liveTargetFromFlags(values);
  if (target === undefined || !('command' in target)) {
    const url = new URL(target?.url ?? '');
    return {
      live: target ?? { url: url.href },
      // Never the headers; a secret in the query is redacted.
      source: { kind: 'mcp-url', url: redactUrl(url.href) },
      flag: '--url',
      label: `${url.origin}${url.pathname}`,
    };
  }
  const args = [...(target.args ?? []), ...(values['server-arg'] ?? [])];
  return {
    live: { command: target.command, args },
    source: { kind: 'mcp-stdio', command: target.command, args },
    flag: '--server',
    label: `"${target.command}"`,
  };
}

function verdictOf(value: string | undefined): 'pass' | 'fail' | null {
  if (value === undefined) return null;
  if (!(VERDICTS as readonly string[]).includes(value))
    throw new UsageError(
      `--verdict must be pass or fail (got "${value}"); leave it out when not known`,
    );
  return value as 'pass' | 'fail';
}

function timeScale(value: string | undefined): number {
  if (value === undefined) return 1;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 1)
    throw new UsageError(
      `--time-scale must be a number above 0 and at most 1: wall ms per virtual ms (got "${value}")`,
    );
  return n;
}
