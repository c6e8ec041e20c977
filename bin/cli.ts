import { FaultlineError } from '../runtime/errors.js';
import { MATRIX_HELP, matrixCommand } from './commands/matrix.js';
import { RUN_HELP, runCommand } from './commands/run.js';
import { processIo, type Io } from './io.js';
import { UsageError } from './usage-error.js';

const HELP = `faultline — fault-injection and evaluation harness for tool-using agents

Usage: faultline <command> [options]

Commands:
  run [globs…]      run scenarios through the reference runtime and print the results
  matrix [globs…]   run the agent zoo, grade every run, and check each mutant is caught

Run 'faultline <command> --help' for a command's options.`;

const COMMANDS: Record<string, { help: string; run: (argv: string[], io: Io) => Promise<number> }> =
  {
    run: { help: RUN_HELP, run: runCommand },
    matrix: { help: MATRIX_HELP, run: matrixCommand },
  };

/** Runs the command line; returns the exit code (0 ok, 1 failures found, 2 bad usage). */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`faultline: unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      // One line: Node's parseArgs messages can run to several.
      io.err(`faultline ${name}: ${(error as Error).message.split('\n')[0] ?? ''}`);
      return 2;
    }
    if (error instanceof FaultlineError && error.code === 'invalid-input') {
      io.err(`faultline ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

function isParseArgsError(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')
  );
}
