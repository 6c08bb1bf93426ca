/**
 * Bounded concurrency, the one helper for it: at most `size` tasks at once, the rest waiting their turn
 * in the order they asked. Callers with a task each (the media runs of concurrent uploads) await
 * `run`; one producer of many tasks (an import, a reindex) uses a TaskGroup, which waits for a place
 * before it starts a task instead of queueing them all.
 */
export class Limit {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`a limit is a positive integer, not ${size}`);
    this.free = size;
  }

  /** A place, once one is free; the function returned gives it back (a second call does nothing). */
  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // The place goes straight to the first in line, so no later caller overtakes it.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }

  /** The task's result, run once a place is free. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const giveBack = await this.take();
    try {
      return await task();
    } finally {
      giveBack();
    }
  }
}

/**
 * One producer's tasks under a Limit. `start` returns once the task has its place, so the producer
 * holds at most `size` tasks; the first failure stops it: `start` and `all` throw it, once the tasks
 * under way have finished.
 */
export class TaskGroup {
  private readonly limit: Limit;
  private readonly running = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  constructor(size: number) {
    this.limit = new Limit(size);
  }

  /** Starts the task in a free place; `ended` settles with it and never rejects (all() throws instead). */
  async start(task: () => Promise<void>): Promise<{ ended: Promise<void> }> {
    const giveBack = await this.limit.take();
    if (this.failure) {
      giveBack();
      await this.all();
    }
    const ended: Promise<void> = (async () => task())()
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => {
        giveBack();
        this.running.delete(ended);
      });
    this.running.add(ended);
    return { ended };
  }

  /** Once every task started has finished; throws the first failure. */
  async all(): Promise<void> {
    await Promise.all(this.running);
    if (this.failure) throw this.failure.error;
  }
}
