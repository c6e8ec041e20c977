/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
