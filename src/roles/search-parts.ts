import type { Config } from '../config.ts';
import { createEsClient, type EsClient } from '../elasticsearch/client.ts';
import { startManagedNode } from '../../tools/dev-services/elasticsearch/managed-node.ts';
import { PostsIndex } from '../elasticsearch/posts-index.ts';
import type { Logger } from '../log.ts';

/** The search engine for both roles: ELASTICSEARCH_URL's, or the managed local node when it is unset. */
export async function resolveElasticsearchUrl(config: Config, log: Logger): Promise<string> {
  if (config.elasticsearch.url) return config.elasticsearch.url;
  const node = await startManagedNode({ log: (line) => log.info(line) });
  return node.url;
}

export interface SearchParts {
  es: EsClient;
  postsIndex: PostsIndex;
}

/**
 * The Elasticsearch client and the posts index, not yet prepared: restore must first check that
 * the index does not exist, which preparing it would make true.
 */
export async function connectSearch(config: Config, log: Logger): Promise<SearchParts> {
  const es = createEsClient({ ...config.elasticsearch, url: await resolveElasticsearchUrl(config, log) });
  return { es, postsIndex: new PostsIndex(es, config.elasticsearch.indexPrefix, config.elasticsearch.replicas) };
}

/** The Elasticsearch client and the posts index, prepared (or a warning when the cluster is down). */
export async function openSearch(config: Config, log: Logger): Promise<SearchParts> {
  const search = await connectSearch(config, log);
  try {
    // An index built for an older mapping gets the fields it lacks (a document carrying them would be refused).
    if (!(await search.postsIndex.ensure())) {
      const added = await search.postsIndex.addMissingFields();
      if (added.length > 0) log.info('added new fields to the posts index', { fields: added });
    }
  } catch (err) {
    // Still usable: writes queue in the outbox; readiness reports Elasticsearch down.
    log.warn('could not prepare the posts index yet', { err: (err as Error).message });
  }
  return search;
}
