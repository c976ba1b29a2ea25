/**
 * What one command opens of the stores (docs/stores.md, "Stores"): the run holds each store's state for it
 * (OpenClaw's databases opened once, the facts cache where the command keeps one, the transcripts a
 * thread reads next) and closes it at the end. The CLI begins a run for each command it runs and
 * closes it when the command is done; a worker thread has a run of its own for its life. Nothing of
 * a run is module state another module sets: a command gets its run in its context.
 */
export class StoreRun {
  private readonly states = new Map<string, { close(): void }>();
  private closed = false;

  /** A store's state in this run, made when first asked for. */
  of<T extends { close(): void }>(store: string, make: () => T): T {
    if (this.closed) throw new Error("the run is over: a store was asked for after its command ended");
    let state = this.states.get(store) as T | undefined;
    if (!state) this.states.set(store, (state = make()));
    return state;
  }

  /**
   * Everything opened so far closed, the run going on (a command that runs until interrupted,
   * `tail -f`, holds no database open between its reads: a read transaction held would keep a
   * writer's log from being checkpointed).
   */
  release(): void {
    for (const state of this.states.values()) state.close();
    this.states.clear();
  }

  /** Everything opened in the run, closed. */
  close(): void {
    for (const state of this.states.values()) state.close();
    this.states.clear();
    this.closed = true;
  }
}

/** This thread's run (the CLI's command's, or a worker's). */
let current: StoreRun | undefined;

/** Begins this thread's run (the one before, if any, is closed first). */
export function beginRun(): StoreRun {
  current?.close();
  current = new StoreRun();
  return current;
}

/** This thread's run; a library caller that began none gets one that lasts its process. */
export function currentRun(): StoreRun {
  current ??= new StoreRun();
  return current;
}
