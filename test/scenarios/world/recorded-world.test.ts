import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gradeRun } from '../../../graders/index.js';
import { ReferenceAgent } from '../../../scenarios/agents/reference.js';
import { zooAgent } from '../../../scenarios/agents/zoo.js';
import { runTrial, validateFaultPlan } from '../../../scenarios/engine.js';
import { WORLDS } from '../../../scenarios/library/worlds.js';
import { loadScenarioFile } from '../../../scenarios/load.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import { connectWorld, type WorldConnection } from '../../../scenarios/world/serve.js';
import {
  createCassette,
  saveCassette,
  type InteractionDraft,
} from '../../../recordings/cassette.js';
import { META } from '../../../runtime/protocol.js';
import { plan } from '../../support/trial-harness.js';
import { partialRefund } from '../../../scenarios/library/refunds/partial-refund.js';
import {
  RecordedWorld,
  type RecordedWorldState,
  type ReplayMatch,
} from '../../../scenarios/world/recorded-world.js';
import { onRecording, recordRun, type RecordedRun } from '../../support/recorded-runs.js';

let dir: string;
/** The reference on refunds/partial-refund, no fault. */
let clean: RecordedRun;
/** The same with the refund's acknowledgement lost: the call is recorded unanswered. */
let ackLost: RecordedRun;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'faultline-recorded-world-'));
  clean = await recordRun(partialRefund, new ReferenceAgent(), dir, { name: 'clean' });
  const lostAck = partialRefund.faultPlans.find((p) => p.id === 'refund-ack-lost');
  ackLost = await recordRun(partialRefund, new ReferenceAgent(), dir, {
    name: 'ack-lost',
    ...(lostAck ? { plan: lostAck } : {}),
  });
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const mutant = (name: string) => {
  const entry = zooAgent(name);
  if (!entry) throw new Error(`no mutant ${name}`);
  return entry.create();
};

describe('a recorded world, matched in sequence', () => {
  it('is followed to its end by the agent that recorded it', async () => {
    expect(clean.live.asExpected).toBe(true);
    const scenario = onRecording(partialRefund, clean.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => new ReferenceAgent(), outDir: dir });
    const world = run.trajectory.world.end as RecordedWorldState;
    expect(world.divergence).toBeNull();
    expect(world.remaining).toBe(0);
    expect(world.served).toBe(clean.cassette.interactions.length);
    expect(run.trajectory.replay).toMatchObject({
      match: 'sequence',
      remaining: 0,
      divergence: null,
    });
    expect(run.mismatches).toEqual([]);
    expect(run.trajectory.outcome.state).toBe('completed');
    const { pass, grades } = gradeRun(scenario, run.trajectory);
    expect(grades.outcome.findings).toEqual([]);
    expect(pass).toBe(true);
  });

  it('ends the run at the first call off the recording, and the finding names step, expected and actual call', async () => {
    // fresh-read off: the mutant refunds without reading the order again first.
    const scenario = onRecording(partialRefund, clean.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => mutant('stale-write'), outDir: dir });
    const divergence = (run.trajectory.world.end as RecordedWorldState).divergence;
    expect(divergence).toMatchObject({
      step: 2,
      expected: { tool: 'get_order', arguments: { order_id: 'ord_4' }, recordedStep: 2 },
      actual: { tool: 'issue_refund', arguments: { order_id: 'ord_4', amount_cents: 2500 } },
    });
    expect(divergence?.message).toBe(
      'replay divergence at step 2: expected get_order {"order_id":"ord_4"}, got issue_refund {"amount_cents":2500,"order_id":"ord_4","reason":"late delivery goodwill"}',
    );
    // Nothing after the divergence reached the world: the run ended there.
    expect(run.trajectory.calls).toHaveLength(2);
    expect(run.trajectory.ledger).toEqual([]);
    const { pass, grades } = gradeRun(scenario, run.trajectory);
    const found = grades.outcome.findings.find((f) => f.code === 'replay-divergence');
    expect(found?.message).toBe(divergence?.message);
    expect(found?.refs).toEqual([{ kind: 'call', callId: run.trajectory.calls[1]?.callId }]);
    expect(grades['tool-use'].findings).toEqual([]);
    expect(pass).toBe(false);
  });

  it('withholds the reply of a call recorded unanswered, and the reference recovers as it did live', async () => {
    const lost = ackLost.cassette.interactions.filter(
      (i) => i.kind === 'tool' && i.unanswered !== undefined,
    );
    expect(lost.map((i) => i.kind === 'tool' && i.tool)).toEqual(['issue_refund']);
    const scenario = onRecording(partialRefund, ackLost.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => new ReferenceAgent(), outDir: dir });
    const refunds = run.trajectory.calls.filter((c) => c.tool === 'issue_refund');
    expect(refunds.map((c) => c.reply)).toEqual(['dropped', 'delivered']);
    expect(refunds[0]?.outcome).toEqual({ type: 'info', reason: 'lost' });
    expect(refunds[1]?.idempotencyKey).toBe(refunds[0]?.idempotencyKey);
    // As live: one effect, the resend under the same key answered and not applied again.
    expect(run.trajectory.ledger).toHaveLength(2);
    expect(run.trajectory.replay).toMatchObject({ remaining: 0, divergence: null });
    expect(gradeRun(scenario, run.trajectory).pass).toBe(true);
  });

  it('is left by a mutant that reconciles where the recording resent under its key', async () => {
    const scenario = onRecording(partialRefund, ackLost.file, 'sequence');
    const run = await runTrial({ scenario, agent: () => mutant('no-idempotency'), outDir: dir });
    const divergence = run.trajectory.replay?.divergence;
    const refundStep = ackLost.cassette.interactions.findIndex(
      (i) => i.kind === 'tool' && i.tool === 'issue_refund',
    );
    expect(divergence).toMatchObject({
      step: refundStep + 2,
      expected: { tool: 'issue_refund' },
      actual: { tool: 'list_refunds', arguments: { order_id: 'ord_4' } },
    });
    expect(gradeRun(scenario, run.trajectory).grades.outcome.findings.map((f) => f.code)).toContain(
      'replay-divergence',
    );
  });
});

// A counter served by a recording: what a hand-made cassette can pin down exactly.
const COUNTER_TOOLS = [
  {
    name: 'get_count',
    inputSchema: { type: 'object' as const, properties: { of: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'add',
    inputSchema: {
      type: 'object' as const,
      properties: { of: { type: 'string' }, idempotency_key: { type: 'string' } },
    },
  },
  {
    name: 'send',
    inputSchema: { type: 'object' as const, properties: { to: { type: 'string' } } },
  },
  // The approval desk's tools, as a session recorded through `serve` lists them: faultline's.
  {
    name: 'request_approval',
    inputSchema: { type: 'object' as const, properties: {} },
  },
];
const count = (n: number): InteractionDraft => ({
  kind: 'tool',
  tool: 'get_count',
  arguments: { of: 'apples' },
  result: { content: [{ type: 'text', text: String(n) }], structuredContent: { n } },
});
const add = (key: string, extra: Partial<InteractionDraft> = {}): InteractionDraft =>
  ({
    kind: 'tool',
    tool: 'add',
    arguments: { of: 'apples', idempotency_key: key },
    result: { content: [{ type: 'text', text: 'added' }], structuredContent: { added: true } },
    ...extra,
  }) as InteractionDraft;

/** Saves a cassette of `interactions` over the counter's tools; returns its path. */
async function counterCassette(name: string, interactions: InteractionDraft[]): Promise<string> {
  const file = join(dir, `${name}.json`);
  await saveCassette(
    file,
    createCassette({
      source: { kind: 'mcp-transport', label: 'hand-made' },
      tools: COUNTER_TOOLS,
      interactions,
      recordedAt: '2026-01-01T00:00:00.000Z',
    }),
  );
  return file;
}

let connection: WorldConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

/** A recorded world over `file`, connected with a credential for the counter's tools. */
async function serve(
  file: string,
  match: ReplayMatch,
): Promise<{
  world: RecordedWorld;
  call: (tool: string, args: Record<string, unknown>) => Promise<CallToolResult>;
}> {
  const world = new RecordedWorld({ seed: 0, clock: new VirtualClock(), cassette: file, match });
  const { token } = world.credentials.issue(
    'run-1',
    { tools: ['get_count', 'add', 'send'], resources: {} },
    60_000,
  );
  connection = await connectWorld(world, { credential: token });
  const client = connection.client;
  return {
    world,
    call: async (tool, args) =>
      (await client.callTool({ name: tool, arguments: args })) as CallToolResult,
  };
}
const n = (result: CallToolResult): unknown => result.structuredContent?.n;

describe('a recorded world, matched by state', () => {
  it('answers a read as recorded after as many applied writes, else at the nearest earlier point', async () => {
    const file = await counterCassette('counter', [
      count(0),
      add('k1'),
      count(1),
      add('k1'), // a resend under the same key: no new write
      count(1),
      add('k2'),
      count(2),
    ]);
    const { world, call } = await serve(file, 'state');
    expect(n(await call('get_count', { of: 'apples' }))).toBe(0);
    await call('add', { of: 'apples', idempotency_key: 'x1' });
    expect(n(await call('get_count', { of: 'apples' }))).toBe(1);
    // The same key again: answered, and not a new effect.
    await call('add', { of: 'apples', idempotency_key: 'x1' });
    expect(n(await call('get_count', { of: 'apples' }))).toBe(1);
    await call('add', { of: 'apples', idempotency_key: 'x2' });
    await call('add', { of: 'apples', idempotency_key: 'x3' });
    // Three writes applied; the recording knows the count after two at most.
    expect(n(await call('get_count', { of: 'apples' }))).toBe(2);
    expect(world.snapshot()).toEqual({
      cassette: file,
      match: 'state',
      served: 7,
      remaining: 0,
      divergence: null,
      writesApplied: 3,
    });
  });

  it('answers a write with its recorded success, a key once, and a key-less send by its turn', async () => {
    const sent = (id: string): InteractionDraft => ({
      kind: 'tool',
      tool: 'send',
      arguments: { to: 'ann' },
      result: { content: [], structuredContent: { id } },
    });
    const file = await counterCassette('writes', [
      add('k1', {
        result: {
          isError: true,
          content: [{ type: 'text', text: 'try again' }],
          _meta: { [META.error]: { class: 'transient', message: 'try again' } },
        },
      }),
      add('k1'),
      sent('m1'),
      sent('m2'),
    ]);
    const { world, call } = await serve(file, 'state');
    const first = await call('add', { of: 'apples', idempotency_key: 'x' });
    const again = await call('add', { of: 'apples', idempotency_key: 'x' });
    expect([first.isError, again.isError]).toEqual([undefined, undefined]);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await call('send', { to: 'ann' })).structuredContent?.id);
    expect(ids).toEqual(['m1', 'm2', 'm2']);
    // One effect for the key; every send is one, the tool taking no key.
    expect(world.ledger.entries().map((e) => e.tool)).toEqual(['add', 'send', 'send', 'send']);
  });

  it('never answers a read with what the recording saw only after writes the run has not made', async () => {
    const file = await counterCassette('counter-late', [add('k1'), count(1)]);
    const { world, call } = await serve(file, 'state');
    const refused = await call('get_count', { of: 'apples' });
    expect(refused.isError).toBe(true);
    expect(world.divergence?.message).toBe(
      'replay divergence at step 1: the recording holds get_count {"of":"apples"} only after 1 applied write(s), and the run has applied 0',
    );
  });

  it('refuses a call the recording never holds as the divergence, and ends the run', async () => {
    const file = await counterCassette('counter-one', [count(0)]);
    const { world, call } = await serve(file, 'state');
    const ended: string[] = [];
    world.endRun = (reason) => ended.push(reason);
    const refused = await call('get_count', { of: 'pears' });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.[META.error]).toMatchObject({ class: 'invalid_argument' });
    const message = 'replay divergence at step 1: the recording holds no get_count {"of":"pears"}';
    expect(world.divergence).toMatchObject({
      step: 1,
      expected: null,
      actual: { tool: 'get_count', arguments: { of: 'pears' } },
      message,
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toEqual([message]);
  });
});

describe('a recorded world, matched in sequence (served alone)', () => {
  it('leaves the approval desk out: its tools are not listed as the world’s, its calls not expected', async () => {
    const file = await counterCassette('with-desk', [
      count(0),
      { kind: 'tool', tool: 'request_approval', arguments: {}, result: { content: [] } },
      add('k1'),
    ]);
    const { world, call } = await serve(file, 'sequence');
    expect(world.tools().map((t) => [t.name, t.kind, t.honoursIdempotencyKey])).toEqual([
      ['get_count', 'read', false],
      ['add', 'write', true],
      ['send', 'write', false],
    ]);
    await call('get_count', { of: 'apples' });
    // Contract arguments are set aside: another run's key matches the recorded call.
    const added = await call('add', { of: 'apples', idempotency_key: 'another-run' });
    expect(added.structuredContent).toEqual({ added: true });
    expect(world.snapshot()).toMatchObject({ served: 2, remaining: 0, divergence: null });
  });

  it('sends a recorded JSON-RPC error again as that error', async () => {
    const file = await counterCassette('rpc-error', [
      {
        kind: 'tool',
        tool: 'get_count',
        arguments: { of: 'apples' },
        error: { code: -32602, message: 'unknown fruit', data: { fruit: 'apples' } },
      },
    ]);
    const { call } = await serve(file, 'sequence');
    await expect(call('get_count', { of: 'apples' })).rejects.toMatchObject({
      code: -32602,
      data: { fruit: 'apples' },
    });
  });

  it('names the end of the recording when a call comes after it, and refuses every later call', async () => {
    const file = await counterCassette('short', [count(0)]);
    const { world, call } = await serve(file, 'sequence');
    await call('get_count', { of: 'apples' });
    const first = await call('add', { of: 'apples' });
    expect(first.content).toEqual([
      {
        type: 'text',
        text: 'replay divergence at step 2: expected the end of the recording (1 calls), got add {"of":"apples"}',
      },
    ]);
    expect(world.divergence?.expected).toBeNull();
    const later = await call('get_count', { of: 'apples' });
    expect(later.isError).toBe(true);
    expect(world.divergence?.step).toBe(2);
    expect(world.snapshot()).toMatchObject({ served: 1, remaining: 0 });
  });
});

describe('a recorded world refuses, in one line naming file and field', () => {
  const make = (options: Record<string, unknown>) => () =>
    WORLDS.recorded!.create({ seed: 0, clock: new VirtualClock(), ...options });

  it('a missing cassette option, a missing file, an unknown match', () => {
    expect(make({})).toThrow(
      'Invalid world recorded: options.cassette: expected the path of a cassette file (got nothing)',
    );
    expect(make({ cassette: join(dir, 'nowhere.json') })).toThrow(
      `Invalid world recorded: options.cassette: cannot read ${join(dir, 'nowhere.json')} (ENOENT)`,
    );
    expect(make({ cassette: clean.file, match: 'loose' })).toThrow(
      'Invalid world recorded: options.match: expected "sequence" or "state" (got "loose")',
    );
  });

  it('a file that is not JSON, not a cassette, or calls a tool it does not list', async () => {
    const truncated = join(dir, 'truncated.json');
    writeFileSync(truncated, readFileSync(clean.file, 'utf8').slice(0, 200));
    expect(make({ cassette: truncated })).toThrow(
      new RegExp(`^Invalid cassette ${truncated}: \\(root\\): not valid JSON`),
    );
    const wrong = join(dir, 'wrong-format.json');
    writeFileSync(wrong, JSON.stringify({ ...clean.cassette, format: 'har' }));
    expect(make({ cassette: wrong })).toThrow(
      `Invalid cassette ${wrong}: format: must be "faultline-cassette" (got "har")`,
    );
    const unlisted = await counterCassette('unlisted', [
      count(0),
      { kind: 'tool', tool: 'remove', arguments: {}, result: { content: [] } },
    ]);
    expect(make({ cassette: unlisted })).toThrow(
      `Invalid cassette ${unlisted}: interactions[1].tool: "remove" is not among the cassette's tools (get_count, add, send)`,
    );
  });

  it('a fault plan with a world fault a recording has no domain for, with the usual message', () => {
    const scenario = onRecording(partialRefund, clean.file, 'state');
    const world = WORLDS.recorded!.create({
      ...scenario.world.options,
      seed: 0,
      clock: new VirtualClock(),
    });
    expect(() => {
      validateFaultPlan(
        scenario,
        plan('stale', {
          kind: 'stale-record',
          trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
          change: 'order-refunded-elsewhere',
        }),
        world,
      );
    }).toThrow(
      'world recorded has no stale-record change "order-refunded-elsewhere" (it has: none)',
    );
    expect(() => {
      validateFaultPlan(
        scenario,
        plan('unapplied', {
          kind: 'unapplied-write',
          trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
        }),
        world,
      );
    }).toThrow(
      "faultPlans[unapplied].faults[0].kind: world recorded is answered from outside faultline, so it cannot drop a write's change",
    );
  });
});

describe('a recorded world as a scenario fixture, faults on top', () => {
  it('takes a lost acknowledgement on the recorded refund: the reference resends under its key, one effect', async () => {
    const lostAck = plan('refund-ack-lost', {
      kind: 'lost-ack',
      trigger: { on: 'call', tool: 'issue_refund', nth: 1 },
    });
    const scenario = onRecording(partialRefund, clean.file, 'state', {
      expected: {
        state: 'completed',
        world: {
          all: [
            { path: 'world.divergence', op: 'eq', value: null },
            { path: 'effects.length', op: 'eq', value: 2 },
          ],
        },
      },
      faultPlans: [lostAck],
    });
    const run = await runTrial({
      scenario,
      faultPlan: lostAck,
      agent: () => new ReferenceAgent(),
      outDir: dir,
    });
    const refunds = run.trajectory.calls.filter((c) => c.tool === 'issue_refund');
    expect(refunds.map((c) => [c.fault, c.reply])).toEqual([
      ['lost-ack', 'dropped'],
      [null, 'delivered'],
    ]);
    expect(run.trajectory.ledger.map((e) => e.tool)).toEqual([
      'issue_refund',
      'send_customer_message',
    ]);
    expect(run.trajectory.replay).toMatchObject({ match: 'state', divergence: null });
    expect(run.mismatches).toEqual([]);
    expect(gradeRun(scenario, run.trajectory).pass).toBe(true);
  });

  it('finds a cassette named relatively beside the scenario file that names it', async () => {
    const sub = join(dir, 'incidents');
    mkdirSync(sub, { recursive: true });
    copyFileSync(clean.file, join(sub, 'refund.json'));
    const file = join(sub, 'scenario.json');
    const scenario = onRecording(partialRefund, './refund.json', 'state', {
      id: 'incidents/relative',
    });
    writeFileSync(file, JSON.stringify(scenario));
    const [loaded] = await loadScenarioFile(file);
    expect(loaded?.world.options).toEqual({ cassette: join(sub, 'refund.json'), match: 'state' });
  });
});
