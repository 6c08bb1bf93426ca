/**
 * A live board's HTTP side (docs/decisions.md §22): its requests at most `rate` a second, a 429 or 503
 * waited out as its Retry-After says, an account's login sent as HTTP Basic authentication.
 */

/** The longest a Retry-After is waited for; a board asking for more is asked again later. */
const MAX_RETRY_WAIT_MS = 600_000;
const RETRIES = 5;

/** Requests to one board, at most `rate` a second, retried as 429 and 503 ask. */
export class Board {
  readonly root: string;
  readonly site: string;
  private next = 0;
  private readonly auth: string | undefined;

  constructor(
    url: string,
    private readonly rate: number,
    login?: string,
    apiKey?: string,
  ) {
    const u = new URL(url);
    this.root = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
    this.site = u.host.toLowerCase();
    this.auth = login ? `Basic ${Buffer.from(`${login}:${apiKey ?? ''}`).toString('base64')}` : undefined;
  }

  private async turn(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + 1000 / this.rate;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }

  /** GET a path of the board (or an absolute address); the response, after Retry-After waits. */
  async get(pathOrUrl: string): Promise<Response> {
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : this.root + pathOrUrl;
    for (let attempt = 0; ; attempt++) {
      await this.turn();
      const res = await fetch(url, {
        headers: { 'User-Agent': 'imgpost-import', ...(this.auth ? { Authorization: this.auth } : {}) },
        redirect: 'follow',
      });
      if ((res.status === 429 || res.status === 503) && attempt < RETRIES) {
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, retryAfterMs(res.headers.get('retry-after'), attempt)));
        continue;
      }
      return res;
    }
  }

  async json(pathOrUrl: string): Promise<unknown> {
    const res = await this.get(pathOrUrl);
    if (!res.ok) throw new Error(`${pathOrUrl}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    return res.json();
  }
}

/** Retry-After in seconds or as a date; absent, a growing pause. */
export function retryAfterMs(header: string | null, attempt: number): number {
  const secs = header === null ? NaN : Number(header);
  const ms = Number.isFinite(secs)
    ? secs * 1000
    : header !== null && Number.isFinite(Date.parse(header))
      ? Date.parse(header) - Date.now()
      : 1000 * 2 ** attempt;
  return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, ms));
}
