import type { Dispatcher } from 'undici';

/**
 * The plainest undici request: the status at the headers, the body read to its end and thrown away,
 * then the status handed over (or, given `expect`, any other status refused). No stream, no promise
 * inside undici: the send loops' floor.
 */
export class StatusHandler implements Dispatcher.DispatchHandlers {
  status = 0;
  constructor(
    private readonly resolve: (status: number) => void,
    private readonly reject: (err: Error) => void,
    private readonly expect?: number,
  ) {}
  onConnect(): void {}
  onHeaders(status: number): boolean {
    this.status = status;
    return true;
  }
  onData(): boolean {
    return true;
  }
  onComplete(): void {
    if (this.expect === undefined || this.status === this.expect) this.resolve(this.status);
    else this.reject(new Error(`HTTP ${this.status}, expected ${this.expect}`));
  }
  onError(err: Error): void {
    this.reject(err);
  }
}
