import type { Operation } from '../../runtime/blueprint.js';
import { resolveValue } from '../../runtime/predicate.js';
import { META } from '../../runtime/protocol.js';
import type { AgentOutcome, AgentRun, AgentUnderTest } from '../agent.js';

const ATTEMPTS = 3;

/**
 * The agent most teams start with: a chat loop that keeps a transcript in memory, calls the
 * tools the plan names, retries every error at once a few times and persists nothing — no
 * idempotency keys, no reconciliation, no approvals, no checkpoints. After a crash it starts
 * over. It exists so the graders have something ordinary to catch.
 */
export class NaiveChatLoopAgent implements AgentUnderTest {
  readonly name = 'naive-chat-loop';
  /** The transcript: what was said and answered, in memory only. */
  readonly transcript: { role: 'tool' | 'agent'; text: string }[] = [];

  start(run: AgentRun): Promise<AgentOutcome> {
    return this.chat(run);
  }

  /** Nothing was kept, so a resumed run is a new chat from the top. */
  resume(run: AgentRun): Promise<AgentOutcome> {
    return this.chat(run);
  }

  private async chat(run: AgentRun): Promise<AgentOutcome> {
    const results: Record<string, unknown> = { input: run.input };
    for (const op of run.blueprint.operations) {
      if (run.signal.aborted)
        return { state: 'cancelled', stopReason: 'cancelled', detail: 'aborted' };
      const result = await this.call(run, op, results);
      if (!result.ok) return { state: 'failed', stopReason: 'tool-error', detail: result.message };
      results[op.id] = result.value;
    }
    this.transcript.push({ role: 'agent', text: 'All done!' });
    return { state: 'completed', stopReason: null, detail: null };
  }

  private async call(
    run: AgentRun,
    op: Operation,
    scope: Record<string, unknown>,
  ): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
    const args = Object.fromEntries(
      Object.entries(op.args).map(([k, v]) => [k, resolveValue(v, scope)]),
    );
    let message = '';
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      this.transcript.push({ role: 'agent', text: `${op.tool} ${JSON.stringify(args)}` });
      const stop = new AbortController();
      try {
        const call = run.client.callTool(
          { name: op.tool, arguments: args, _meta: { [META.credential]: run.credential.token } },
          undefined,
          { timeout: 2_147_483_647 },
        );
        call.catch(() => undefined);
        const timer = run.clock.sleep(30_000, stop.signal).then(
          () => 'timeout' as const,
          () => 'stopped' as const,
        );
        const reply = await Promise.race([call, timer]);
        if (reply === 'timeout' || reply === 'stopped') throw new Error(`${op.tool} timed out`);
        const text = JSON.stringify(reply.structuredContent ?? reply.content);
        this.transcript.push({ role: 'tool', text });
        if (reply.isError !== true) return { ok: true, value: reply.structuredContent ?? null };
        message = text;
      } catch (error) {
        message = error instanceof Error ? error.message : String(error);
        this.transcript.push({ role: 'tool', text: message });
      } finally {
        stop.abort(new Error('call settled'));
      }
    }
    return { ok: false, message };
  }
}
