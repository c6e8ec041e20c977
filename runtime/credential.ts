import { z } from 'zod';

/**
 * What a run may touch: tools by name, and for each scoped argument the values it may take
 * (`'*'` for any). A world checks every call against the scope of the credential presented.
 */
export const scopeSchema = z.object({
  tools: z.array(z.string()),
  resources: z.record(z.string(), z.union([z.literal('*'), z.array(z.string())])),
});
export type Scope = z.infer<typeof scopeSchema>;

/**
 * A credential scoped to one run. The token is presented on every call (request `_meta`) and
 * never written to the store, events or the planner's context.
 */
export interface RunCredential {
  readonly token: string;
  readonly scope: Scope;
  /** Virtual time after which the world refuses the token. */
  readonly expiresAt: number;
  /** Revokes the token at its issuer (used when a run is cancelled). */
  revoke?(): Promise<void> | void;
}
