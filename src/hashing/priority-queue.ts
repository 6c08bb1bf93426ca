import { queueOptionsSymbol, type TaskQueue } from 'piscina';

type Task = Parameters<TaskQueue['push']>[0];

/**
 * Worker-pool priorities (docs/decisions.md §4: background thumbnails never starve hashing).
 * `urgent`: someone waits on it (hashing an upload, a thumbnail asked for before it was made);
 * `background`: queued thumbnail work. A waiting urgent task always runs before a background one.
 */
export type PoolPriority = 'urgent' | 'background';

/** Put on a task's payload under queueOptionsSymbol; structured cloning drops it. */
export const priorityOption = (priority: PoolPriority) => ({ [queueOptionsSymbol]: { priority } });

/** A piscina TaskQueue with two FIFO lanes. */
export class PriorityTaskQueue implements TaskQueue {
  private readonly urgent: Task[] = [];
  private readonly background: Task[] = [];

  get size(): number {
    return this.urgent.length + this.background.length;
  }

  private laneOf(task: Task): Task[] {
    const options = task[queueOptionsSymbol] as { priority?: PoolPriority } | null;
    return options?.priority === 'background' ? this.background : this.urgent;
  }

  push(task: Task): void {
    this.laneOf(task).push(task);
  }

  shift(): Task | null {
    return this.urgent.shift() ?? this.background.shift() ?? null;
  }

  remove(task: Task): void {
    const lane = this.laneOf(task);
    const i = lane.indexOf(task);
    if (i >= 0) lane.splice(i, 1);
  }

  /**
   * Drops the queued task carrying this payload. piscina 5 refuses a task it can neither run nor
   * queue (maxQueue 0, every worker busy) after it has put it here, and would run it later anyway:
   * a refused upload's thumbnails would then appear in the temp directory after its 503.
   */
  drop(payload: unknown): void {
    for (const lane of [this.urgent, this.background]) {
      const i = lane.findIndex((t) => (t as { task?: unknown }).task === payload);
      if (i >= 0) lane.splice(i, 1);
    }
  }
}
