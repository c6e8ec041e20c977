import type { Contract } from '../runtime/contract.js';
import type { Scope } from '../runtime/credential.js';

/** The credential's scope: exactly the contract's tools, and the union of their resource limits. */
export function scopeFromContract(contract: Contract): Scope {
  const resources: Scope['resources'] = {};
  for (const authority of Object.values(contract.authority.tools)) {
    for (const [arg, allowed] of Object.entries(authority.resources)) {
      const current = resources[arg];
      if (allowed === '*' || current === '*') resources[arg] = '*';
      else resources[arg] = [...new Set([...(current ?? []), ...allowed])];
    }
  }
  return { tools: Object.keys(contract.authority.tools), resources };
}
