import type { OperationInput } from '../../../runtime/blueprint.js';
import type { ContractInput } from '../../../runtime/contract.js';
import { InvalidInputError } from '../../../runtime/errors.js';
import type { Predicate } from '../../../runtime/predicate.js';
import { APPROVAL_TOKEN_META, META } from '../../../runtime/protocol.js';
import { defineScenario, type Scenario } from '../../scenario.js';
import { VirtualClock } from '../../virtual-clock.js';
import { WorldError } from '../../world/world-error.js';
import { loadRetailData } from '../../worlds/tau-retail/data.js';
import { CONFIRMED_WRITES, RetailWorld } from '../../worlds/tau-retail/world.js';
import { derivedFaultPlans } from './fault-plans.js';
import { TASK_SPLITS, type GoldAction, type RetailTask, type TaskSplit } from './tasks.js';

/**
 * Gold writes the benchmark itself lists although its store's rules refuse them: a return to a
 * card that did not pay for the order (test 12, 13), an exchange of an order still pending
 * (test 64), and gift cards short of the difference (test 106 and the train tasks below). In
 * τ-bench such a call answers with an error and changes nothing; here it is left out of the
 * reference blueprint, and the expected store is the same. Keyed `split:task:action`, with the
 * refusal's class; any other refused gold write is an error naming the task. (A refused gold
 * read changes nothing either and is simply left out: the benchmark's paths have many, such as
 * an item id tried as a product id.)
 */
export const KNOWN_GOLD_REFUSALS: Readonly<Record<string, string>> = {
  'test:12:4': 'invalid_argument',
  'test:13:4': 'invalid_argument',
  'test:64:6': 'conflict',
  'test:106:0': 'precondition_failed',
  'train:24:0': 'precondition_failed',
  'train:27:0': 'precondition_failed',
  'train:81:1': 'precondition_failed',
  'train:148:1': 'precondition_failed',
  'train:161:0': 'precondition_failed',
  'train:214:0': 'precondition_failed',
  'train:229:0': 'precondition_failed',
  'train:252:0': 'precondition_failed',
  'train:253:0': 'precondition_failed',
  'train:288:0': 'precondition_failed',
  'train:314:3': 'precondition_failed',
  'train:349:0': 'precondition_failed',
  'train:351:2': 'precondition_failed',
  'train:351:6': 'precondition_failed',
  'train:369:0': 'precondition_failed',
  'train:376:1': 'precondition_failed',
  'train:427:0': 'precondition_failed',
  'train:431:4': 'precondition_failed',
  'train:441:0': 'precondition_failed',
  'train:469:0': 'precondition_failed',
};

/** What the gold path gives: the store's hash after it, the actions kept, and who acts. */
export interface GoldReplay {
  readonly hash: string;
  /** Indices of the gold actions the store accepted, in order. */
  readonly kept: readonly number[];
  /** The user the gold path identifies (its `find_user_id_by_*` answer), else the task's. */
  readonly actingUser: string;
}

const pad = (n: number): string => String(n).padStart(3, '0');

/** A task's scenario id: `tau-retail/test-007`, `tau-retail-train/train-042`. */
export function taskScenarioId(split: TaskSplit, index: number): string {
  return `${split === 'test' ? 'tau-retail' : 'tau-retail-train'}/${split}-${pad(index)}`;
}

/** Where a task comes from, for errors: `tau-retail task test-046 (tasks_test.json[46])`. */
export function taskSource(split: TaskSplit, index: number): string {
  return `tau-retail task ${split}-${pad(index)} (${TASK_SPLITS[split]}[${index}])`;
}

/**
 * Replays a task's gold actions on a fresh store, every write confirmed, and hashes the store
 * after: the benchmark's expected database. A gold action the store refuses (other than the
 * benchmark's own known refusals) is an error naming the task and the action.
 */
export function replayGold(split: TaskSplit, index: number, task: RetailTask): GoldReplay {
  const source = taskSource(split, index);
  const data = loadRetailData();
  if (!Object.hasOwn(data.users, task.user_id))
    throw new InvalidInputError(source, [`user_id: no user "${task.user_id}" in users.json`]);
  const world = new RetailWorld({ seed: 0, clock: new VirtualClock() });
  const tools = world.tools().map((t) => t.name);
  const credential = world.credentials.issue(
    'gold',
    { tools, resources: {} },
    Number.MAX_SAFE_INTEGER,
  );
  const kept: number[] = [];
  let actingUser: string | undefined;
  task.actions.forEach((action, i) => {
    const where = `actions[${i}] (${action.name})`;
    if (!tools.includes(action.name))
      throw new InvalidInputError(source, [`${where}: the store has no tool "${action.name}"`]);
    const meta: Record<string, string> = { [META.credential]: credential.token };
    const identity = world.approvalIdentity(action.name, action.kwargs);
    if (identity)
      meta[APPROVAL_TOKEN_META] = world.approvals.grant({
        runId: 'gold',
        tool: action.name,
        identity,
        approver: 'customer',
      }).token;
    const known = KNOWN_GOLD_REFUSALS[`${split}:${index}:${i}`];
    try {
      const result = world.callTool(action.name, action.kwargs, meta, `gold-${i}`);
      if (known !== undefined)
        throw new InvalidInputError(source, [
          `${where}: listed as refused by the store (${known}) but it was accepted`,
        ]);
      kept.push(i);
      if (actingUser === undefined && action.name.startsWith('find_user_id_by_'))
        actingUser = String(result.user_id);
    } catch (error) {
      if (!(error instanceof WorldError)) throw error;
      if (known === error.class) return;
      // A refused read changes nothing: the benchmark's own path has them (an item id tried as
      // a product id); the blueprint leaves them out.
      if (world.tool(action.name)?.kind !== 'write') return;
      throw new InvalidInputError(
        source,
        [`${where}: the store refuses this gold action (${error.class}: ${error.message})`],
        { cause: error },
      );
    }
  });
  return { hash: world.storeHash(), kept, actingUser: actingUser ?? task.user_id };
}

/**
 * Each write's status precondition, how a fresh read tells it is done, and that same read
 * verified right after the write is confirmed: a store that acknowledged a change it never made
 * is caught before the run claims success.
 */
function writeChecks(
  action: GoldAction,
): Pick<OperationInput, 'preconditions' | 'reconcile' | 'postconditions'> {
  const checks = doneChecks(action);
  return checks.reconcile === undefined
    ? checks
    : {
        ...checks,
        postconditions: [
          {
            description: `${action.name} took effect`,
            read: checks.reconcile.read,
            expect: checks.reconcile.found,
          },
        ],
      };
}

/** Each write's status precondition and how a fresh read tells it is done. */
function doneChecks(action: GoldAction): Pick<OperationInput, 'preconditions' | 'reconcile'> {
  const args = action.kwargs;
  const orderRead = { tool: 'get_order_details', args: { order_id: String(args.order_id) } };
  const status = (s: string): Predicate => ({ path: 'fresh.status', op: 'eq', value: s });
  const addressIs: Predicate = {
    all: ['address1', 'address2', 'city', 'state', 'country', 'zip'].map((k) => ({
      path: `fresh.address.${k}`,
      op: 'eq' as const,
      value: String(args[k]),
    })),
  };
  const needs = (s: string): OperationInput['preconditions'] => [
    { description: `the order is still ${s}`, read: orderRead, expect: status(s) },
  ];
  switch (action.name) {
    case 'cancel_pending_order':
      return {
        preconditions: needs('pending'),
        reconcile: { read: orderRead, found: status('cancelled') },
      };
    case 'modify_pending_order_items':
      return {
        preconditions: needs('pending'),
        reconcile: { read: orderRead, found: status('pending (item modified)') },
      };
    case 'modify_pending_order_address':
      return { preconditions: needs('pending'), reconcile: { read: orderRead, found: addressIs } };
    case 'modify_pending_order_payment':
      return {
        preconditions: needs('pending'),
        reconcile: {
          read: orderRead,
          found: {
            some: {
              path: 'fresh.payment_history',
              where: {
                all: [
                  { path: 'item.transaction_type', op: 'eq', value: 'payment' },
                  {
                    path: 'item.payment_method_id',
                    op: 'eq',
                    value: String(args.payment_method_id),
                  },
                ],
              },
            },
          },
        },
      };
    case 'return_delivered_order_items':
      return {
        preconditions: needs('delivered'),
        reconcile: { read: orderRead, found: status('return requested') },
      };
    case 'exchange_delivered_order_items':
      return {
        preconditions: needs('delivered'),
        reconcile: { read: orderRead, found: status('exchange requested') },
      };
    case 'modify_user_address':
      return {
        reconcile: {
          read: { tool: 'get_user_details', args: { user_id: String(args.user_id) } },
          found: addressIs,
        },
      };
    default:
      return {};
  }
}

/** The message that gives the required outputs (commas would be dropped by the rule anyway). */
export function outputsMessage(outputs: readonly string[]): string {
  return `Here is what you asked for: ${outputs.join(' | ')}`;
}

/** The store's own success rule: the gold store, and every required output said. */
export function benchmarkSuccess(hash: string): Predicate {
  return {
    all: [
      { path: 'world.db_hash', op: 'eq', value: hash },
      { path: 'world.outputs_missing', op: 'eq', value: [] },
    ],
  };
}

/**
 * One τ-bench task as a faultline scenario: the instruction and user as input; a contract
 * whose authority is the acting user's own records (orders, payment methods, account), every
 * store write needing the customer's confirmation (an approval the scripted operator grants);
 * the gold actions as the reference blueprint (plus a `respond` that gives the required
 * outputs); and the benchmark's success rule as the expected outcome.
 */
export function taskScenario(split: TaskSplit, index: number, task: RetailTask): Scenario {
  const gold = replayGold(split, index, task);
  const data = loadRetailData();
  const user = data.users[gold.actingUser];
  if (!user)
    throw new InvalidInputError(taskSource(split, index), [
      `actions: the gold path identifies user "${gold.actingUser}", who is not in users.json`,
    ]);
  const world = new RetailWorld({ seed: 0, clock: new VirtualClock() });
  const kinds = new Map(world.tools().map((t) => [t.name, t.kind]));
  const scope = {
    user_id: [gold.actingUser],
    order_id: [...user.orders],
    payment_method_id: Object.keys(user.payment_methods),
  };
  const tools: ContractInput['authority']['tools'] = {};
  for (const tool of world.tools()) {
    const confirmed = (CONFIRMED_WRITES as readonly string[]).includes(tool.name);
    const scoped = Object.fromEntries(
      Object.entries(scope).filter(([arg]) => arg in tool.input.shape),
    );
    tools[tool.name] = {
      risk: tool.kind === 'write' ? (confirmed ? 'high' : 'low') : 'read',
      resources: scoped,
      approval: confirmed ? 'always' : 'never',
    };
  }
  const operations: OperationInput[] = gold.kept.map((i) => {
    const action = task.actions[i] as GoldAction;
    const write = kinds.get(action.name) === 'write';
    return {
      id: `a${pad(i)}-${action.name.replaceAll('_', '-')}`,
      description: `gold action ${i}: ${action.name}`,
      tool: action.name,
      kind: write ? 'write' : 'read',
      args: action.kwargs,
      ...(write
        ? { idempotent: action.name !== 'modify_user_address', ...writeChecks(action) }
        : {}),
    };
  });
  if (task.outputs.length > 0)
    operations.push({
      id: 'respond',
      description: 'give the customer the outputs they asked for',
      tool: 'respond',
      kind: 'write',
      args: { message: outputsMessage(task.outputs) },
      idempotent: true,
    });
  // A task whose right answer is to change nothing (or whose gold the store refuses whole)
  // still looks the customer up: a blueprint has at least one operation.
  if (operations.length === 0)
    operations.push({
      id: 'look-up-customer',
      description: 'look the customer up; the task changes nothing',
      tool: 'get_user_details',
      kind: 'read',
      args: { user_id: gold.actingUser },
    });
  const writes = operations.filter((o) => o.kind === 'write').length;
  const id = taskScenarioId(split, index);
  const scenario = {
    id,
    title: `τ-bench retail ${split} task ${index}: ${task.instruction.slice(0, 90)}${task.instruction.length > 90 ? '…' : ''}`,
    workflowClass: 'tau-retail',
    tier: 'high' as const,
    world: { name: 'tau-retail', seed: 0, options: { requiredOutputs: task.outputs } },
    input: { user_id: gold.actingUser, instruction: task.instruction },
    contract: {
      version: '1',
      objective: task.instruction,
      decisionBoundary: 'execute' as const,
      authority: { tools },
      autonomy: 'bounded' as const,
      budgets: {
        toolCalls: 20 + 6 * operations.length,
        retries: 12,
        externalWrites: 4 * writes + 4,
        virtualTimeMs: 6 * 3_600_000,
      },
    },
    blueprint: { id: `tau-retail-${split}-${pad(index)}`, version: '1', operations },
    expected: { state: 'completed' as const, world: benchmarkSuccess(gold.hash) },
    tags: ['tau-retail', `tau-retail-${split}`],
  };
  return defineScenario(
    { ...scenario, faultPlans: derivedFaultPlans(scenario, gold.hash) },
    taskSource(split, index),
  );
}
