import * as crypto from 'node:crypto';

// One-shot hashing (Node ≥ 20.12) costs a third of a Hash object; a run derives one key per write.
const oneShot = (crypto as Partial<Pick<typeof crypto, 'hash'>>).hash;
const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot('sha256', text, 'hex')
  : (text) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The key a write carries: a hash of the run and the blueprint operation, so it is the same
 * on every retry, after every replan and after a resume — never a step counter.
 */
export function idempotencyKey(runId: string, operationId: string): string {
  return `idem_${sha256Hex(`${runId}\u0000${operationId}`).slice(0, 24)}`;
}

/** What a runtime without the `idempotency` safeguard sends: a new key on every send. */
export function perSendKey(runId: string, operationId: string, send: number): string {
  return idempotencyKey(runId, `${operationId}#${send}`);
}
