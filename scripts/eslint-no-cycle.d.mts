import type { Rule } from 'eslint';

/** No import cycle among the TypeScript program's own files (see eslint-no-cycle.mjs). */
export declare const noCycle: Rule.RuleModule;
