import type { Clock } from '../../runtime/clock.js';
import { FaultlineError } from '../../runtime/errors.js';
import type { RunCredential, Scope } from '../../runtime/credential.js';
import { clonePlain } from './plain-clone.js';

/** The verdict on a presented credential: whose run it is, or why the world refuses. */
export type CredentialCheck =
  | { readonly ok: true; readonly runId: string }
  | {
      readonly ok: false;
      readonly class: 'unauthenticated' | 'forbidden';
      readonly message: string;
    };

interface Grant {
  readonly runId: string;
  /** The world's copy: `restrict` narrows it without touching what the run was handed. */
  scope: Scope;
  expiresAt: number;
  revoked: boolean;
}

/**
 * The world's issuer of per-run credentials, and the authority that checks them on every call.
 * The world keeps its own copy of each scope so faults can revoke, expire or narrow a
 * credential under a running agent, which then learns of it only through the errors it gets.
 * Tokens are deterministic (`cred_<runId>_<n>`) so runs replay; messages never echo a token.
 *
 * A token is valid strictly before `expiresAt`, so `expire(token)` takes effect at once.
 *
 * @example
 * ```ts
 * const credentials = new CredentialRegistry(clock);
 * const cred = credentials.issue('run-1', { tools: ['get_order'], resources: {} }, 60_000);
 * credentials.check(cred.token, 'get_order', { order_id: 'ord_1' }); // { ok: true, runId: 'run-1' }
 * ```
 */
export class CredentialRegistry {
  private readonly grants = new Map<string, Grant>();
  private issued = 0;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  issue(runId: string, scope: Scope, ttlMs: number): RunCredential {
    const token = `cred_${runId}_${++this.issued}`;
    const expiresAt = this.clock.now() + ttlMs;
    this.grants.set(token, { runId, scope: clonePlain(scope), expiresAt, revoked: false });
    return {
      token,
      scope: clonePlain(scope),
      expiresAt,
      revoke: () => {
        this.revoke(token);
      },
    };
  }

  revoke(token: string): void {
    this.grant(token).revoked = true;
  }

  /** Removes one tool from the token's scope (the `revoked-permission` fault). */
  restrict(token: string, tool: string): void {
    const grant = this.grant(token);
    grant.scope = { ...grant.scope, tools: grant.scope.tools.filter((t) => t !== tool) };
  }

  /** Makes the token expire now (the `expired-credential` fault). */
  expire(token: string): void {
    const grant = this.grant(token);
    grant.expiresAt = Math.min(grant.expiresAt, this.clock.now());
  }

  check(
    token: string | undefined,
    tool: string,
    args: Readonly<Record<string, unknown>>,
  ): CredentialCheck {
    if (token === undefined) return refuse('unauthenticated', 'no credential presented');
    const grant = this.grants.get(token);
    if (!grant) return refuse('unauthenticated', 'credential not recognised');
    if (grant.revoked) return refuse('unauthenticated', 'credential has been revoked');
    if (this.clock.now() >= grant.expiresAt) {
      return refuse('unauthenticated', `credential expired at t=${grant.expiresAt}ms`);
    }
    if (!grant.scope.tools.includes(tool)) {
      return refuse('forbidden', `credential does not grant tool "${tool}"`);
    }
    for (const [name, allowed] of Object.entries(grant.scope.resources)) {
      if (allowed === '*' || !(name in args)) continue;
      const value = args[name];
      if (value === undefined) continue;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      if (!allowed.includes(text)) {
        return refuse(
          'forbidden',
          `credential does not grant ${name} "${text}" for tool "${tool}"`,
        );
      }
    }
    return { ok: true, runId: grant.runId };
  }

  private grant(token: string): Grant {
    const grant = this.grants.get(token);
    if (!grant) throw new FaultlineError('not-found', 'No credential was issued with that token');
    return grant;
  }
}

function refuse(cls: 'unauthenticated' | 'forbidden', message: string): CredentialCheck {
  return { ok: false, class: cls, message };
}
