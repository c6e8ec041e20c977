/** Where the command writes, so tests and terminals differ only here. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** A transient status line: rewritten in place on a terminal, one line each otherwise. */
  progress(text: string): void;
  progressDone(): void;
  readonly color: boolean;
  /** stdout is a terminal: progress may redraw in place. */
  readonly tty: boolean;
}

export function processIo(): Io {
  const tty = process.stdout.isTTY;
  const color = tty && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '');
  let live = false;
  // A reader that has read enough (`faultline list | head`) closes the pipe: what is left to
  // print has no one to read it. The command still finishes its work (a run still writes its
  // results); only its printing stops, with no EPIPE trace on stderr.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    progress: (text) => {
      if (tty) {
        process.stdout.write(`\r\u001b[2K${text}`);
        live = true;
      } else process.stdout.write(`${text}\n`);
    },
    progressDone: () => {
      if (live) process.stdout.write('\r\u001b[2K');
      live = false;
    },
    color,
    tty,
  };
}
