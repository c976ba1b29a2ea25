/** The process as the CLI sees it (`main` is given it; tests give their own). */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  stdin?: AsyncIterable<Buffer | string>;
  /** Calls `listener` when the process is interrupted (Ctrl-C, SIGTERM, SIGHUP) rather than letting it be killed. */
  onInterrupt?: (listener: () => void) => void;
  /** The clock the progress bar goes by (ms; tests give their own). */
  now?: () => number;
}
