import type { Clock } from '../../runtime/clock.js';

/** An approval as the operator granted it, and what became of it. */
export interface ApprovalRecord {
  readonly token: string;
  readonly runId: string;
  readonly tool: string;
  /** The effect identity the approval covers, e.g. `refund:ord_1:6000`. */
  readonly identity: string;
  readonly approver: string;
  readonly grantedAt: number;
  readonly consumedAt: number | null;
  /** JSON-RPC id (as a string) of the request that consumed it. */
  readonly consumedBy: string | null;
}

export type ApprovalRefusal = 'missing' | 'unknown' | 'wrong-action' | 'reused';

export type ApprovalCheck =
  { readonly ok: true } | { readonly ok: false; readonly reason: ApprovalRefusal };

/**
 * Where the operator grants approvals and where the world redeems them. A token is good once,
 * for exactly one tool and effect identity, so an agent cannot stretch one approval over a
 * second refund or a different amount. Tokens are deterministic (`apr_<n>`) so runs replay.
 *
 * @example
 * ```ts
 * const approvals = new ApprovalRegistry(clock);
 * const { token } = approvals.grant({ runId: 'r1', tool: 'issue_refund',
 *   identity: 'refund:ord_1:6000', approver: 'ops@example.com' });
 * approvals.consume(token, 'issue_refund', 'refund:ord_1:6000', '7'); // { ok: true }
 * approvals.consume(token, 'issue_refund', 'refund:ord_1:6000', '8'); // { ok: false, reason: 'reused' }
 * ```
 */
export class ApprovalRegistry {
  private readonly byToken = new Map<string, ApprovalRecord>();

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  grant(request: { runId: string; tool: string; identity: string; approver: string }): {
    token: string;
  } {
    const token = `apr_${this.byToken.size + 1}`;
    this.byToken.set(token, {
      token,
      runId: request.runId,
      tool: request.tool,
      identity: request.identity,
      approver: request.approver,
      grantedAt: this.clock.now(),
      consumedAt: null,
      consumedBy: null,
    });
    return { token };
  }

  /**
   * Redeems `token` for one action. A token presented for another action is refused as
   * `wrong-action` and stays unused; it was never valid for that action.
   */
  consume(
    token: string | undefined,
    tool: string,
    identity: string,
    requestId: string | null = null,
  ): ApprovalCheck {
    if (token === undefined) return { ok: false, reason: 'missing' };
    const record = this.byToken.get(token);
    if (!record) return { ok: false, reason: 'unknown' };
    if (record.tool !== tool || record.identity !== identity)
      return { ok: false, reason: 'wrong-action' };
    if (record.consumedAt !== null) return { ok: false, reason: 'reused' };
    this.byToken.set(token, { ...record, consumedAt: this.clock.now(), consumedBy: requestId });
    return { ok: true };
  }

  /** Every approval granted, in grant order. */
  records(): ApprovalRecord[] {
    return [...this.byToken.values()];
  }
}
