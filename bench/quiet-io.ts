/**
 * The command's I/O for a benchmark that runs it in-process: its output and progress dropped,
 * so only the benchmark's own figures print; its error lines go to `err` (dropped by default).
 */
import type { Io } from '../bin/io.js';

export function quietIo(err: (line: string) => void = () => undefined): Io {
  return {
    out: () => undefined,
    err,
    progress: () => undefined,
    progressDone: () => undefined,
    color: false,
    tty: false,
  };
}
