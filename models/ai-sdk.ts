import type * as Ai from 'ai';

let loaded: typeof Ai | undefined;

/**
 * The AI SDK, imported once per thread and then handed out from memory.
 *
 * Its users inside a run (the tool-loop agent, the model planner, `worldTools`) call this
 * instead of `import('ai')`: even for a module already loaded, `import()` goes through the
 * module loader, and with tsx's hooks registered (a TypeScript agent) that is a round trip to
 * the hooks' thread. The virtual clock takes such a wait for the run gone idle and jumps to its
 * next timer, which may be the run's time limit. The engine calls this before a run that has a
 * model is scheduled, so the calls inside the run find the SDK in hand.
 */
export async function loadAiSdk(): Promise<typeof Ai> {
  loaded ??= await import('ai');
  return loaded;
}
