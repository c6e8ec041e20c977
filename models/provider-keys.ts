/**
 * The environment variable each built-in provider reads its key from. Apart from
 * `providers.ts` so that what reads a setup (the config, the key scrub) does not import the
 * providers' SDKs: those load only with a run's model.
 */
export const DEFAULT_KEY_ENV: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};
