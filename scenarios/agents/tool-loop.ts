import type { ModelMessage } from 'ai';
import { worldTools } from '../../adapters/ai-sdk.js';
import { loadAiSdk } from '../../models/ai-sdk.js';
import type { PromptFile } from '../../models/model-setup.js';
import { defaultPromptFile } from '../../models/prompt-file.js';
import { FaultlineError } from '../../runtime/errors.js';
import type { AgentReport, AgentRun, AgentUnderTest } from '../agent.js';

/** The prefix the default prompt asks the model to open a refusal with. */
const STOPPED = /^\s*STOPPED\s*:?\s*/i;

/**
 * The default system prompt, `prompts/tool-loop.md`, with its content hash: what a run's record
 * names as its prompt version when no `--prompt` was given.
 */
export function toolLoopPromptFile(): PromptFile {
  return defaultPromptFile('tool-loop');
}

/** The default system prompt's text (see {@link toolLoopPromptFile}). */
export function toolLoopDefaultPrompt(): string {
  return toolLoopPromptFile().text;
}

/**
 * The first user message: the objective, and the input as JSON. Nothing of faultline's own
 * vocabulary (contract, blueprint, operations) — an ordinary team's agent is told the job.
 */
export function toolLoopFirstMessage(run: Pick<AgentRun, 'objective' | 'input'>): string {
  return `Objective: ${run.objective}\n\nInput (JSON): ${JSON.stringify(run.input)}`;
}

/**
 * The ordinary agent many teams ship: `generateText` from the AI SDK with the world's tools
 * given directly, in a loop until the model answers in text or the step cap is reached. The
 * transcript lives in memory and nothing is durable, so after a crash it starts over from the
 * objective (it has no `resume`). It sends an idempotency key or an approval token only when
 * the model put one in a tool's arguments. It is the baseline whose failures under faults —
 * a write sent again after its acknowledgement was lost, a confirmed write redone after a
 * crash — faultline exists to show.
 *
 * Its step cap is the contract's tool-call budget plus one for the final answer (the only
 * thing it takes from the contract, as a team would size its loop). The system prompt is
 * `run.modelSettings.system` (`--prompt FILE`) or `prompts/tool-loop.md`.
 *
 * @example
 * ```ts
 * const agent = new ToolLoopAgent();
 * await runScenario(partialRefund, { agent, model: setup, outDir });
 * ```
 */
export class ToolLoopAgent implements AgentUnderTest {
  readonly name = 'tool-loop';
  readonly exposes = { model: true } as const;
  readonly defaultPromptHash = toolLoopPromptFile().hash;
  /** The transcript of the current incarnation: in memory, lost with it. */
  messages: ModelMessage[] = [];
  private incarnation: AbortController | undefined;

  async start(run: AgentRun): Promise<AgentReport> {
    const { model } = run;
    if (!model) {
      throw new FaultlineError(
        'invalid-input',
        'tool-loop needs a model: run it with --model PROVIDER:MODEL (or give the run a language model)',
      );
    }
    this.incarnation = new AbortController();
    const abortSignal = AbortSignal.any([run.signal, this.incarnation.signal]);
    const settings = run.modelSettings ?? {};
    const tools = await worldTools(run.client);
    // Not imported at the top, so that a start which runs no model agent never loads the AI
    // SDK; loaded before the run began (see loadAiSdk).
    const { generateText, stepCountIs } = await loadAiSdk();
    this.messages = [{ role: 'user', content: toolLoopFirstMessage(run) }];
    let result: Awaited<ReturnType<typeof generateText>>;
    try {
      result = await generateText({
        model,
        tools,
        system: settings.system ?? toolLoopDefaultPrompt(),
        messages: this.messages,
        stopWhen: stepCountIs(run.contract.budgets.toolCalls + 1),
        abortSignal,
        ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
        ...(settings.seed === undefined ? {} : { seed: settings.seed }),
      });
    } catch (error) {
      return {
        status: 'stopped',
        reason: abortSignal.aborted ? 'aborted' : 'model call failed',
        detail: error instanceof Error ? error.message : String(error),
      };
    }
    this.messages.push(...result.response.messages);
    const last = result.steps.at(-1);
    if (last?.finishReason === 'tool-calls')
      return { status: 'stopped', reason: 'step limit reached', detail: result.text };
    const text = result.text.trim();
    if (STOPPED.test(text)) {
      const why = text.replace(STOPPED, '').split('\n')[0]?.trim() ?? '';
      return { status: 'stopped', reason: why || 'the model stopped', detail: text };
    }
    return { status: 'completed', detail: text };
  }

  /** A crash takes the transcript with it: the in-flight `generateText` is aborted. */
  discard(): void {
    this.incarnation?.abort(new Error('the incarnation crashed'));
  }
}
