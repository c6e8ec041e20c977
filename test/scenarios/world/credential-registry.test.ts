import { describe, expect, it } from 'vitest';
import type { Scope } from '../../../runtime/credential.js';
import { VirtualClock } from '../../../scenarios/virtual-clock.js';
import { CredentialRegistry } from '../../../scenarios/world/credential-registry.js';

const scope: Scope = {
  tools: ['get_order', 'issue_refund'],
  resources: { order_id: ['ord_1', 'ord_2'], customer_id: '*' },
};

function setup(): { clock: VirtualClock; registry: CredentialRegistry } {
  const clock = new VirtualClock({ start: 1_000 });
  return { clock, registry: new CredentialRegistry(clock) };
}

describe('CredentialRegistry', () => {
  it('issues deterministic tokens that expire ttl after now', () => {
    const { registry } = setup();

    const first = registry.issue('run-a', scope, 60_000);
    const second = registry.issue('run-a', scope, 10);

    expect(first.token).toBe('cred_run-a_1');
    expect(second.token).toBe('cred_run-a_2');
    expect(first.expiresAt).toBe(61_000);
    expect(first.scope).toEqual(scope);
  });

  it('accepts a token within scope and names its run', () => {
    const { registry } = setup();
    const cred = registry.issue('run-a', scope, 60_000);

    expect(registry.check(cred.token, 'get_order', { order_id: 'ord_1' })).toEqual({
      ok: true,
      runId: 'run-a',
    });
    expect(registry.check(cred.token, 'get_order', { customer_id: 'anyone' })).toEqual({
      ok: true,
      runId: 'run-a',
    });
    expect(registry.check(cred.token, 'get_order', {})).toEqual({ ok: true, runId: 'run-a' });
  });

  it('refuses a missing or unknown token as unauthenticated', () => {
    const { registry } = setup();

    expect(registry.check(undefined, 'get_order', {})).toMatchObject({
      ok: false,
      class: 'unauthenticated',
    });
    expect(registry.check('cred_forged_1', 'get_order', {})).toMatchObject({
      ok: false,
      class: 'unauthenticated',
      message: 'credential not recognised',
    });
  });

  it('refuses a token once virtual time reaches its expiry', () => {
    const { clock, registry } = setup();
    const cred = registry.issue('run-a', scope, 60_000);

    clock.advanceTo(60_999);
    expect(registry.check(cred.token, 'get_order', {}).ok).toBe(true);
    clock.advanceTo(61_000);

    expect(registry.check(cred.token, 'get_order', {})).toMatchObject({
      ok: false,
      class: 'unauthenticated',
    });
  });

  it('expires a token at once on expire()', () => {
    const { registry } = setup();
    const cred = registry.issue('run-a', scope, 60_000);

    registry.expire(cred.token);

    expect(registry.check(cred.token, 'get_order', {})).toMatchObject({
      ok: false,
      class: 'unauthenticated',
    });
  });

  it('refuses a token revoked through the credential itself', async () => {
    const { registry } = setup();
    const cred = registry.issue('run-a', scope, 60_000);

    await cred.revoke?.();

    expect(registry.check(cred.token, 'get_order', {})).toMatchObject({
      ok: false,
      class: 'unauthenticated',
      message: 'credential has been revoked',
    });
  });

  it('refuses a tool outside the scope, and one restricted away later, as forbidden', () => {
    const { registry } = setup();
    const cred = registry.issue('run-a', scope, 60_000);

    expect(registry.check(cred.token, 'void_refund', {})).toMatchObject({
      ok: false,
      class: 'forbidden',
    });
    registry.restrict(cred.token, 'issue_refund');

    expect(registry.check(cred.token, 'issue_refund', {})).toMatchObject({
      ok: false,
      class: 'forbidden',
    });
    expect(registry.check(cred.token, 'get_order', {}).ok).toBe(true);
    expect(cred.scope.tools).toContain('issue_refund');
  });

  it('refuses a resource outside the scope and names the argument and value', () => {
    const { registry } = setup();
    const cred = registry.issue('run-a', scope, 60_000);

    const verdict = registry.check(cred.token, 'get_order', { order_id: 'ord_3' });

    expect(verdict).toMatchObject({ ok: false, class: 'forbidden' });
    expect(verdict.ok ? '' : verdict.message).toContain('order_id "ord_3"');
  });

  it('throws when asked to change a token it never issued', () => {
    const { registry } = setup();

    expect(() => {
      registry.revoke('cred_nobody_9');
    }).toThrow(/No credential was issued/);
  });
});
