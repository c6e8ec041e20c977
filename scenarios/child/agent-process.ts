/*
 * The child process of a child-mode trial: runs the agent under test (the reference runtime,
 * rebuilt from data, or any agent module, imported) against the parent's
 * world (MCP on stdin/stdout), clock, operator and crash probes (IPC), on the run's SQLite
 * store, and reports how the incarnation ended. Started by `child-agent-host.ts` as
 * `node agent-process.js` (from the sources: `node --import <tsx> agent-process.ts`) with an
 * IPC channel; see `protocol.ts`.
 *
 * stdout carries MCP and nothing else: diagnostics go to stderr.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CrashProbe } from '../../runtime/crash-probe.js';
import { sharedSchemaValidators } from '../../runtime/schema-validators.js';
import { agentOutcome, type AgentOutcome, type AgentRun } from '../agent.js';
import { ReferenceAgent } from '../agents/reference.js';
import { importAgent } from './import-agent.js';
import { ParentLink } from './parent-link.js';
import type { FromChild, ToChild } from './protocol.js';
import { RemoteClock } from './remote-clock.js';
import { RemoteOperator } from './remote-operator.js';
import { StdioClientTransport } from './stdio-client-transport.js';

type Init = Extract<ToChild, { type: 'init' }>;

async function incarnation(link: ParentLink, init: Init): Promise<AgentOutcome> {
  const clock = new RemoteClock(link);
  const operator = new RemoteOperator(link);
  const abort = new AbortController();
  link.on('abort', ({ reason }) => {
    abort.abort(new Error(reason));
  });
  if (init.aborted !== null) abort.abort(new Error(init.aborted));

  // The validators the executor compiles input schemas with, as the in-process agent's client
  // has them (`connectWorld`): one Ajv per process, not a second one for the output schemas.
  const client = new Client(
    { name: 'faultline-agent-child', version: '0.1.0' },
    { jsonSchemaValidator: sharedSchemaValidators },
  );
  await client.connect(new StdioClientTransport(link));
  const armed = new Set<CrashProbe>(init.armed);
  const { run: spec } = init;
  const run: AgentRun = {
    runId: spec.runId,
    objective: spec.objective,
    contract: spec.contract,
    blueprint: spec.blueprint,
    input: spec.input,
    client,
    // One MCP stream joins the child to the parent's world; a second is not served across processes.
    connect: () =>
      Promise.reject(new Error('run.connect() is not served in child mode: use run.client')),
    clock,
    credential: {
      ...spec.credential,
      revoke: () => link.request({ kind: 'revoke' }).then(() => undefined),
    },
    storePath: spec.storePath,
    signal: abort.signal,
    operator,
    probe: async (probe, info) => {
      if (!armed.has(probe)) return;
      const { crash } = await link.request({ kind: 'probe', probe, info });
      // The faithful crash: no cleanup, no flush, no exit handlers — the kernel ends us here.
      if (crash) process.kill(process.pid, 'SIGKILL');
    },
  };
  const made = init.agent;
  // This process is killed mid-run by design: the reference runtime's every commit goes to
  // the store file as it is made, for the next process (and the parent) to read.
  const agent =
    'module' in made
      ? await link.busy(importAgent(made.module))
      : new ReferenceAgent(made.name, made.safeguards, { store: 'file' });
  try {
    // An agent that keeps nothing durable has no resume: a restart is a new start.
    return agentOutcome(await (init.resume && agent.resume ? agent.resume(run) : agent.start(run)));
  } finally {
    await client.close();
  }
}

const link = new ParentLink();
// The parent going away ends the child: it never outlives its run.
const orphaned = (): void => process.exit(1);
process.on('disconnect', orphaned);

function report(result: Extract<FromChild, { type: 'outcome' }>['result']): void {
  process.off('disconnect', orphaned);
  link.send({ type: 'outcome', result }, () => process.exit(0));
}

link.on('init', (init) => {
  incarnation(link, init).then(
    (outcome) => {
      report({ ok: true, outcome });
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(
        `faultline child ${process.pid}: ${error instanceof Error ? (error.stack ?? message) : message}\n`,
      );
      report({ ok: false, message });
    },
  );
});
