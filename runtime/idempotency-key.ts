import { createHash } from 'node:crypto';

/**
 * The key a write carries: a hash of the run and the blueprint operation, so it is the same
 * on every retry, after every replan and after a resume — never a step counter.
 */
export function idempotencyKey(runId: string, operationId: string): string {
  return `idem_${createHash('sha256').update(`${runId}\u0000${operationId}`).digest('hex').slice(0, 24)}`;
}

/** What a runtime without the `idempotency` safeguard sends: a new key on every send. */
export function perSendKey(runId: string, operationId: string, send: number): string {
  return idempotencyKey(runId, `${operationId}#${send}`);
}
