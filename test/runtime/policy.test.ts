import { describe, expect, it } from 'vitest';
import { parseContract, type Contract, type ContractInput } from '../../runtime/contract.js';
import {
  approvalRequired,
  checkAction,
  type GateAction,
  type GateInput,
} from '../../runtime/policy.js';
import type { ApprovalRecord, BudgetUse } from '../../runtime/records.js';
import { withSafeguards } from '../../runtime/safeguards.js';

const baseContract = (): ContractInput => ({
  version: '1',
  objective: 'refund order ord_1',
  decisionBoundary: 'execute',
  authority: {
    tools: {
      get_order: { risk: 'read', resources: { order_id: '*' } },
      issue_refund: { risk: 'high', resources: { order_id: ['ord_1', 'ord_2'] } },
      send_email: { risk: 'low', approval: 'always' },
      adjust_credit: {
        risk: 'medium',
        approval: { when: { path: 'args.amount_cents', op: 'gt', value: 1_000 } },
      },
    },
  },
  autonomy: 'bounded',
  budgets: { toolCalls: 10, retries: 3, externalWrites: 2, virtualTimeMs: 60_000, costUsd: 1 },
});

const contract = (change: (c: ContractInput) => void = () => undefined): Contract => {
  const input = baseContract();
  change(input);
  return parseContract(input, 'policy test contract');
};

const read: GateAction = {
  actionId: 'act-read',
  tool: 'get_order',
  kind: 'read',
  args: { order_id: 'ord_9' },
  origin: 'blueprint',
};
const write: GateAction = {
  actionId: 'act-refund',
  tool: 'issue_refund',
  kind: 'write',
  args: { order_id: 'ord_1', amount_cents: 500 },
  origin: 'blueprint',
};

const unused: BudgetUse = { toolCalls: 0, retries: 0, externalWrites: 0, costUsd: 0 };

const approval = (status: ApprovalRecord['status'], actionId = write.actionId): ApprovalRecord => ({
  id: 'apr-1',
  runId: 'run-1',
  actionId,
  tool: write.tool,
  status,
  approver: status === 'requested' ? null : 'alice',
  reason: null,
  requestedAt: 0,
  decidedAt: status === 'requested' ? null : 1,
  consumedAt: status === 'consumed' ? 2 : null,
  scope: {},
  preview: {},
  evidenceRefs: [],
  token: status === 'requested' ? null : 'tok',
});

const gate = (overrides: Partial<GateInput> = {}): GateInput => ({
  contract: contract(),
  action: write,
  used: unused,
  elapsedMs: 0,
  approval: undefined,
  safeguards: withSafeguards(),
  ...overrides,
});

describe('checkAction: authority', () => {
  it('allows a listed tool within scope', () => {
    expect(checkAction(gate())).toEqual({ verdict: 'allow', rule: 'authority.allowed' });
    expect(checkAction(gate({ action: read }))).toEqual({
      verdict: 'allow',
      rule: 'authority.allowed',
    });
  });

  it('denies a tool not in the contract', () => {
    const decision = checkAction(gate({ action: { ...write, tool: 'delete_account' } }));

    expect(decision).toMatchObject({
      verdict: 'deny',
      rule: 'authority.tool-listed',
      class: 'policy_denied',
    });
  });

  it('denies a tool not listed even when every safeguard is off', () => {
    const off = withSafeguards({ 'provenance-gate': false, budgets: false, approvals: false });

    expect(checkAction(gate({ action: { ...read, tool: 'drop_db' }, safeguards: off })).rule).toBe(
      'authority.tool-listed',
    );
  });

  it('denies a resource outside the tool scope, naming it', () => {
    const decision = checkAction(gate({ action: { ...write, args: { order_id: 'ord_3' } } }));

    expect(decision).toMatchObject({
      verdict: 'deny',
      rule: 'authority.resource-scope',
      class: 'policy_denied',
    });
    expect(decision.verdict === 'deny' && decision.reason).toContain('order_id=ord_3');
  });

  it("denies a call beyond its tool's cap, even with every safeguard off, and allows one within", () => {
    const capped = contract((x) => {
      x.authority.tools.issue_refund = {
        risk: 'high',
        resources: { order_id: ['ord_1'] },
        cap: { path: 'args.amount_cents', op: 'lte', value: 1_000 },
      };
    });
    const over = { ...write, args: { order_id: 'ord_1', amount_cents: 25_222 } };
    const off = withSafeguards({ 'provenance-gate': false, budgets: false, approvals: false });

    const decision = checkAction(gate({ contract: capped, action: over, safeguards: off }));

    expect(decision).toMatchObject({
      verdict: 'deny',
      rule: 'authority.cap',
      class: 'policy_denied',
    });
    expect(decision.verdict === 'deny' && decision.reason).toContain('args.amount_cents lte 1000');
    expect(checkAction(gate({ contract: capped })).verdict).toBe('allow');
  });

  it('denies a call that leaves out an argument its tool is scoped by', () => {
    const decision = checkAction(gate({ action: { ...write, args: { amount_cents: 500 } } }));

    expect(decision).toMatchObject({ verdict: 'deny', rule: 'authority.resource-scope' });
  });

  it('compares non-string scoped values by their JSON form', () => {
    const c = contract((x) => {
      x.authority.tools.issue_refund = { risk: 'high', resources: { order_id: ['7'] } };
    });

    expect(
      checkAction(gate({ contract: c, action: { ...write, args: { order_id: 7 } } })).verdict,
    ).toBe('allow');
    expect(
      checkAction(gate({ contract: c, action: { ...write, args: { order_id: 8 } } })).rule,
    ).toBe('authority.resource-scope');
  });

  it('lets a wildcard resource through', () => {
    expect(checkAction(gate({ action: { ...read, args: { order_id: 'anything' } } })).verdict).toBe(
      'allow',
    );
  });

  it('checks authority before budgets', () => {
    const spent: BudgetUse = { toolCalls: 10, retries: 0, externalWrites: 2, costUsd: 1 };

    expect(
      checkAction(gate({ used: spent, action: { ...write, args: { order_id: 'ord_3' } } })).rule,
    ).toBe('authority.resource-scope');
  });
});

describe('checkAction: provenance', () => {
  const fromContent: GateAction = { ...write, origin: 'content' };

  it('denies an action proposed from retrieved content', () => {
    expect(checkAction(gate({ action: fromContent }))).toMatchObject({
      verdict: 'deny',
      rule: 'provenance.untrusted-origin',
      class: 'policy_denied',
    });
    expect(checkAction(gate({ action: { ...read, origin: 'content' } })).rule).toBe(
      'provenance.untrusted-origin',
    );
  });

  it('allows it when the provenance-gate safeguard is off', () => {
    const decision = checkAction(
      gate({ action: fromContent, safeguards: withSafeguards({ 'provenance-gate': false }) }),
    );

    expect(decision.verdict).toBe('allow');
  });

  it('does not treat compensation as untrusted', () => {
    expect(checkAction(gate({ action: { ...write, origin: 'compensation' } })).verdict).toBe(
      'allow',
    );
  });
});

describe('checkAction: budgets', () => {
  it.each<[string, Partial<GateInput>]>([
    ['budget.tool-calls', { used: { ...unused, toolCalls: 10 } }],
    ['budget.external-writes', { used: { ...unused, externalWrites: 2 } }],
    ['budget.virtual-time', { elapsedMs: 60_000 }],
    ['budget.cost', { used: { ...unused, costUsd: 1 } }],
  ])('denies with %s once that budget is spent', (rule, overrides) => {
    const decision = checkAction(gate(overrides));

    expect(decision).toMatchObject({ verdict: 'deny', rule, class: 'budget_exhausted' });
  });

  it.each<[string, Partial<GateInput>]>([
    ['tool calls', { used: { ...unused, toolCalls: 9 } }],
    ['external writes', { used: { ...unused, externalWrites: 1 } }],
    ['virtual time', { elapsedMs: 59_999 }],
    ['cost', { used: { ...unused, costUsd: 0.99 } }],
  ])('allows just below the %s budget', (_what, overrides) => {
    expect(checkAction(gate(overrides)).verdict).toBe('allow');
  });

  it.each<[string, Partial<GateInput>]>([
    ['tool calls', { used: { ...unused, toolCalls: 50 } }],
    ['external writes', { used: { ...unused, externalWrites: 50 } }],
    ['virtual time', { elapsedMs: 1e9 }],
    ['cost', { used: { ...unused, costUsd: 50 } }],
  ])('ignores spent %s when the budgets safeguard is off', (_what, overrides) => {
    expect(
      checkAction(gate({ ...overrides, safeguards: withSafeguards({ budgets: false }) })),
    ).toEqual({
      verdict: 'allow',
      rule: 'authority.allowed',
    });
  });

  it('does not count external writes against a read', () => {
    expect(
      checkAction(gate({ action: read, used: { ...unused, externalWrites: 2 } })).verdict,
    ).toBe('allow');
  });

  it('treats a zero cost budget as unlimited', () => {
    const c = contract((x) => {
      x.budgets.costUsd = 0;
    });

    expect(checkAction(gate({ contract: c, used: { ...unused, costUsd: 100 } })).verdict).toBe(
      'allow',
    );
  });
});

describe('checkAction: autonomy modes', () => {
  it.each(['shadow', 'recommend'] as const)('%s mode shadows writes and allows reads', (mode) => {
    const c = contract((x) => {
      x.autonomy = mode;
    });

    expect(checkAction(gate({ contract: c, action: write }))).toMatchObject({
      verdict: 'shadow',
      rule: `autonomy.${mode}`,
    });
    expect(checkAction(gate({ contract: c, action: read }))).toEqual({
      verdict: 'allow',
      rule: 'authority.allowed',
    });
  });

  it('shadow mode still denies what authority forbids', () => {
    const c = contract((x) => {
      x.autonomy = 'shadow';
    });

    expect(checkAction(gate({ contract: c, action: { ...write, tool: 'unlisted' } })).verdict).toBe(
      'deny',
    );
  });

  it('supervised mode needs an approval for every write, but not for reads', () => {
    const c = contract((x) => {
      x.autonomy = 'supervised';
    });

    expect(checkAction(gate({ contract: c, action: write }))).toMatchObject({
      verdict: 'needs-approval',
      rule: 'approval.required',
    });
    expect(checkAction(gate({ contract: c, action: read })).verdict).toBe('allow');
    expect(
      checkAction(gate({ contract: c, action: write, approval: approval('granted') })).verdict,
    ).toBe('allow');
  });

  it('bounded mode needs an approval only where the tool says so', () => {
    expect(checkAction(gate({ action: write })).verdict).toBe('allow');
    expect(checkAction(gate({ action: { ...write, tool: 'send_email', args: {} } })).verdict).toBe(
      'needs-approval',
    );
  });

  it('bounded mode evaluates a { when } rule over the args', () => {
    const credit = (amount: number): GateAction => ({
      ...write,
      tool: 'adjust_credit',
      args: { amount_cents: amount },
    });

    expect(checkAction(gate({ action: credit(1_001) })).verdict).toBe('needs-approval');
    expect(checkAction(gate({ action: credit(1_000) })).verdict).toBe('allow');
  });
});

describe('checkAction: approvals', () => {
  const c = contract((x) => {
    x.autonomy = 'supervised';
  });

  it('asks for an approval when none exists or it is still requested', () => {
    expect(checkAction(gate({ contract: c })).verdict).toBe('needs-approval');
    expect(checkAction(gate({ contract: c, approval: approval('requested') })).verdict).toBe(
      'needs-approval',
    );
  });

  it('allows with a granted approval for this action', () => {
    expect(checkAction(gate({ contract: c, approval: approval('granted') }))).toEqual({
      verdict: 'allow',
      rule: 'authority.allowed',
    });
  });

  it('denies when the approval was denied', () => {
    expect(checkAction(gate({ contract: c, approval: approval('denied') }))).toMatchObject({
      verdict: 'deny',
      rule: 'approval.denied',
      class: 'policy_denied',
    });
  });

  it('denies an approval granted for another action', () => {
    expect(
      checkAction(gate({ contract: c, approval: approval('granted', 'act-other') })),
    ).toMatchObject({
      verdict: 'deny',
      rule: 'approval.wrong-action',
      class: 'policy_denied',
    });
  });

  it('denies reuse of an approval already consumed', () => {
    expect(checkAction(gate({ contract: c, approval: approval('consumed') }))).toMatchObject({
      verdict: 'deny',
      rule: 'approval.reused',
      class: 'policy_denied',
    });
  });

  it('allows without an approval when the approvals safeguard is off', () => {
    const off = withSafeguards({ approvals: false });

    expect(checkAction(gate({ contract: c, safeguards: off })).verdict).toBe('allow');
    expect(
      checkAction(gate({ contract: c, safeguards: off, approval: approval('denied') })).verdict,
    ).toBe('allow');
  });

  it('ignores an approval where none is required', () => {
    expect(checkAction(gate({ action: read, approval: approval('denied') })).verdict).toBe('allow');
  });
});

describe('approvalRequired', () => {
  it('never requires one for a read', () => {
    const supervised = contract((x) => {
      x.autonomy = 'supervised';
    });

    expect(approvalRequired(supervised, read)).toBe(false);
    expect(approvalRequired(contract(), { ...read, tool: 'send_email' })).toBe(false);
  });

  it('always requires one for a write in supervised mode', () => {
    const supervised = contract((x) => {
      x.autonomy = 'supervised';
    });

    expect(approvalRequired(supervised, write)).toBe(true);
  });

  it('follows the tool rule in bounded mode', () => {
    const c = contract();

    expect(approvalRequired(c, write)).toBe(false);
    expect(approvalRequired(c, { ...write, tool: 'send_email' })).toBe(true);
    expect(
      approvalRequired(c, { ...write, tool: 'adjust_credit', args: { amount_cents: 5_000 } }),
    ).toBe(true);
    expect(
      approvalRequired(c, { ...write, tool: 'adjust_credit', args: { amount_cents: 5 } }),
    ).toBe(false);
    expect(approvalRequired(c, { ...write, tool: 'adjust_credit', args: {} })).toBe(false);
    expect(approvalRequired(c, { ...write, tool: 'unlisted' })).toBe(false);
  });
});
