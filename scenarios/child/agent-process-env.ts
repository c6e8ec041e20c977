/**
 * Run from the sources, the path of a built agent-process.js that the child-process crash mode
 * starts for the reference agent instead of agent-process.ts through tsx (an agent module's
 * child keeps the sources, which that module imports in a checkout). The test suite builds the sources once per run
 * and points this at the build, so that its few dozen child crashes each boot on plain Node
 * (about a quarter of tsx's CPU). The build must be of these same sources: parent and child
 * speak one protocol. The built package ignores it: its child is its own agent-process.js.
 * Its own file so that the test suite's setup can name it without loading the harness.
 *
 * @example
 * ```ts
 * process.env[AGENT_PROCESS_ENV] = '/tmp/build/dist/scenarios/child/agent-process.js';
 * ```
 */
export const AGENT_PROCESS_ENV = 'FAULTLINE_AGENT_PROCESS' as const;
