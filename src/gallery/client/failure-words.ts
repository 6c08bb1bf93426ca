/** What a person reads for a failed API request, by status (pure: tested on its own). */
interface Issue {
  path?: (string | number)[];
  message?: string;
}

export function describeFailure(status: number, body: unknown, retryAfter: string | null): string {
  const said =
    body && typeof body === 'object' && 'error' in body && typeof (body as { error: unknown }).error === 'string'
      ? (body as { error: string }).error
      : undefined;
  switch (status) {
    case 400:
      if (Array.isArray(body))
        return `The request was not accepted: ${(body as Issue[]).map((i) => (i.path?.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ')}.`;
      return `The request was not accepted: ${said ?? 'bad request'}.`;
    case 401:
      return typeof body === 'string'
        ? 'Wrong username or password.'
        : 'You are not logged in, or your session has ended. Log in and try again.';
    case 403:
      return 'Your account does not have permission to do this.';
    case 404:
      return 'Not found: it does not exist, or it was deleted.';
    case 409:
      return `Refused because of a conflict: ${said ?? 'near-duplicates exist'}.`;
    case 413:
      return 'The file is too large.';
    case 429:
      return `Too many requests. Wait ${retryAfter ?? 'a few'} seconds and try again.`;
    case 503:
      return `The service is temporarily unavailable (the search index is down). Try again ${retryAfter ? `in ${retryAfter} seconds` : 'shortly'}.`;
    default:
      return `The server failed (status ${status}${said ? `: ${said}` : ''}).`;
  }
}
