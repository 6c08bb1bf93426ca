/**
 * What a long-running job reports its progress to. Features (import, rethumb, reindex, verify,
 * backup, restore) take this type and know nothing of where it goes; the CLI passes its progress
 * bar (src/cli/progress.ts), library callers and tests pass `silentProgress`.
 */
export interface Progress {
  /** sets the amount done (and optionally a new total) */
  update(done: number, total?: number): void;
  /** a phase label shown after the command's label, before the bar: "reindex loading [...]" */
  phase(label: string): void;
  done(): void;
}

/** For library callers that want no output. */
export const silentProgress: Progress = { update() {}, phase() {}, done() {} };
