import { z } from 'zod';
import type { Clock } from '../../runtime/clock.js';
import type { ApprovalDecision, Operator } from '../../runtime/operator.js';
import { takeContractArguments } from './contract-arguments.js';
import type { World } from './world.js';
import { WorldError } from './world-error.js';

/** What a request stands at: the operator has not answered yet, or answered one way. */
export type ApprovalStatus = 'pending' | 'granted' | 'denied';

/** What `get_approval` and `wait_for_approval` answer. */
export interface ApprovalState {
  status: ApprovalStatus;
  /** Present once granted: send it as `approval_token` with exactly the change asked about. */
  approval_token?: string;
  /** Present once denied. */
  reason?: string;
}

interface Entry {
  state: ApprovalState;
  readonly decided: Promise<void>;
}

/** How long `wait_for_approval` waits without `timeout_ms`: below an MCP client's default request timeout (60 s). */
export const DEFAULT_APPROVAL_WAIT_MS = 30_000;

const requestInput = z.object({
  tool: z.string().describe('The write tool the approval is for.'),
  arguments: z
    .record(z.string(), z.unknown())
    .describe('The exact arguments the write will be sent with (the change to approve).'),
});
const requestOutput = z.object({
  request_id: z.string(),
  status: z.enum(['pending', 'granted', 'denied']),
});
const stateOutput = z.object({
  status: z.enum(['pending', 'granted', 'denied']),
  approval_token: z.string().optional(),
  reason: z.string().optional(),
});
const getInput = z.object({ request_id: z.string() });
const waitInput = z.object({
  request_id: z.string(),
  timeout_ms: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(`How long to wait for the decision (default ${DEFAULT_APPROVAL_WAIT_MS} ms).`),
});

/** One approval tool as the MCP server serves it. */
export interface ApprovalTool {
  readonly name: 'request_approval' | 'get_approval' | 'wait_for_approval';
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  handle(args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/**
 * The run's approvals as tools, for an agent with no operator channel (a stock MCP client): it
 * asks with `request_approval`, then polls `get_approval` or blocks on `wait_for_approval`, and
 * sends the granted token as the write's `approval_token`. Every request goes to the run's
 * operator — the engine's fault-wrapped scripted operator — exactly as the reference runtime's
 * requests do, so approval faults and the careful operator's policy checks apply alike.
 *
 * These are not world calls: they never cross the wire layer, so no fault fires on them and
 * they are not in the trajectory's calls. The operator log records each request
 * (`agent.approval-request`, not counted as a person stepping in) and the operator's decision.
 * Requests outlive a crash of the agent: a resumed agent may poll what it asked before.
 *
 * @example
 * ```ts
 * const desk = new ApprovalDesk({ world, operator, clock, runId: 'run-1' });
 * const { request_id } = await desk.request('issue_refund', { order_id: 'ord_1', amount_cents: 500 });
 * const { status, approval_token } = await desk.wait(request_id, 60_000);
 * ```
 */
export class ApprovalDesk {
  private readonly requests = new Map<string, Entry>();

  constructor(
    private readonly options: {
      readonly world: World<unknown>;
      readonly operator: Operator;
      readonly clock: Clock;
      readonly runId: string;
      /** Records an entry in the run's operator log. */
      readonly note?: (kind: string, detail: string) => void;
    },
  ) {}

  /** Puts a change before the operator; answers at once with the request's id. */
  request(
    toolName: string,
    sent: Readonly<Record<string, unknown>>,
  ): {
    request_id: string;
    status: ApprovalStatus;
  } {
    const { world, operator, clock, runId, note } = this.options;
    const tool = world.tool(toolName);
    if (!tool) throw new WorldError('invalid_argument', `unknown tool "${toolName}"`);
    if (tool.kind !== 'write') {
      throw new WorldError(
        'invalid_argument',
        `${toolName} changes nothing, so it never needs an approval`,
      );
    }
    // The change is what the world will see: without the contract's own arguments.
    const args = { ...takeContractArguments(sent).args };
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      throw new WorldError(
        'invalid_argument',
        `invalid arguments for ${toolName}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`,
      );
    }
    const id = `approval-${this.requests.size + 1}`;
    const identity = world.approvalIdentity(toolName, args);
    note?.('agent.approval-request', `${toolName} ${identity ?? id} (${id})`);
    const entry: Entry = {
      state: { status: 'pending' },
      decided: operator
        .requestApproval({
          approvalId: id,
          runId,
          // The approval's action: the world's identity for the change when it has one.
          actionId: identity ?? id,
          operationId: id,
          tool: toolName,
          args,
          evidenceRefs: [],
          requestedAt: clock.now(),
        })
        .then(
          (decision: ApprovalDecision) => {
            entry.state =
              decision.decision === 'granted'
                ? { status: 'granted', approval_token: decision.token }
                : { status: 'denied', reason: decision.reason };
          },
          (error: unknown) => {
            entry.state = {
              status: 'denied',
              reason: `the operator could not answer: ${error instanceof Error ? error.message : String(error)}`,
            };
          },
        ),
    };
    this.requests.set(id, entry);
    return { request_id: id, status: entry.state.status };
  }

  /** Where a request stands now. */
  get(requestId: string): ApprovalState {
    return { ...this.entry(requestId).state };
  }

  /** Waits, in virtual time, until the request is decided or `timeoutMs` has passed. */
  async wait(requestId: string, timeoutMs = DEFAULT_APPROVAL_WAIT_MS): Promise<ApprovalState> {
    const entry = this.entry(requestId);
    if (entry.state.status === 'pending') {
      let cancel = (): void => undefined;
      const timedOut = new Promise<void>((resolve) => {
        cancel = this.options.clock.setTimer(timeoutMs, resolve);
      });
      await Promise.race([entry.decided, timedOut]);
      cancel();
    }
    return { ...entry.state };
  }

  /** The three tools, for the MCP server. */
  tools(): readonly ApprovalTool[] {
    return [
      {
        name: 'request_approval',
        description:
          "Ask the operator to approve one change: the write tool and the exact arguments it will be sent with. Answers with a request id; then poll get_approval or call wait_for_approval, and send the granted token as the write's approval_token.",
        input: requestInput,
        output: requestOutput,
        handle: (args) => {
          const { tool, arguments: change } = requestInput.parse(args);
          return Promise.resolve(this.request(tool, change));
        },
      },
      {
        name: 'get_approval',
        description:
          'Where an approval request stands: pending, granted (with approval_token) or denied (with reason).',
        input: getInput,
        output: stateOutput,
        handle: (args) => Promise.resolve({ ...this.get(getInput.parse(args).request_id) }),
      },
      {
        name: 'wait_for_approval',
        description: `Waits until an approval request is decided or timeout_ms has passed (default ${DEFAULT_APPROVAL_WAIT_MS} ms), then answers as get_approval does.`,
        input: waitInput,
        output: stateOutput,
        handle: async (args) => {
          const { request_id, timeout_ms } = waitInput.parse(args);
          return { ...(await this.wait(request_id, timeout_ms)) };
        },
      },
    ];
  }

  private entry(requestId: string): Entry {
    const entry = this.requests.get(requestId);
    if (!entry) throw new WorldError('not_found', `no approval request "${requestId}"`);
    return entry;
  }
}
