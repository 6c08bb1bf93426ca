import fs from 'node:fs';
import { Client, errors } from '@elastic/elasticsearch';
import type { Config } from '../config.ts';

export type EsClient = Client;

export function createEsClient(es: Omit<Config['elasticsearch'], 'replicas'> & { url: string }, opts: { requestTimeout?: number } = {}): EsClient {
  return new Client({
    node: es.url,
    auth: es.apiKey
      ? { apiKey: es.apiKey }
      : es.username && es.password
        ? { username: es.username, password: es.password }
        : undefined,
    tls: es.caCert ? { ca: fs.readFileSync(es.caCert) } : undefined,
    requestTimeout: opts.requestTimeout ?? 10_000,
    // The relay does its own retrying with backoff; a quick failure lets it answer 503 promptly.
    maxRetries: 1,
  });
}

/** True when the error means "Elasticsearch could not be reached", as opposed to a request it refused. */
export function isConnectionError(err: unknown): boolean {
  return (
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError ||
    (err instanceof errors.ResponseError && [502, 503, 504].includes(err.statusCode ?? 0))
  );
}

export async function ping(client: EsClient): Promise<boolean> {
  try {
    const health = await client.cluster.health({ timeout: '2s' }, { requestTimeout: 3000 });
    return health.status !== 'red';
  } catch {
    return false;
  }
}
