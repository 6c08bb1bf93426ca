import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { readPostsMapping } from './elasticsearch/posts-index.ts';
import { ClusterWatcher } from './health/cluster-watcher.ts';
import { startServer } from './roles/server.ts';
import { listen } from './server.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`imgpost: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // A second server on the same DATA_DIR stops here: DataDirOwnedError names the running one.
  const services = await startServer(config);
  // ELASTICSEARCH_REPLICAS is a dynamic index setting: a changed value takes effect on restart, no reindex.
  const changed = await services.postsIndex.applyReplicas().catch((err: Error) => {
    services.log.warn('could not apply ELASTICSEARCH_REPLICAS to the posts index', { err: err.message });
    return [];
  });
  if (changed.length > 0)
    services.log.info('applied ELASTICSEARCH_REPLICAS to the posts index', {
      indices: changed,
      replicas: config.elasticsearch.replicas,
    });
  // An index built by an older release lacks fields or field types this one queries (mapping v3: the
  // positional text_grams of text search): say so at once rather than through failing searches.
  const built = await services.postsIndex.builtMappingVersion().catch(() => undefined);
  if (built !== undefined && built < readPostsMapping().mappingVersion) {
    services.log.warn('the posts index was built for an older mapping: run `imgpost reindex`', {
      built,
      current: readPostsMapping().mappingVersion,
    });
  }
  const watcher = new ClusterWatcher(services.postsIndex, services.log);
  watcher.start();
  let server;
  try {
    server = await listen(createApp(services), config.host, config.port);
  } catch (err) {
    await watcher.stop();
    await services.close();
    throw err;
  }
  services.ownerLock.describe(config.publicUrl);
  // The runtime in the log, as npm start runs the pinned Node (docs/operations/runtime.md), not the system's.
  services.log.info('listening', {
    url: config.publicUrl,
    host: config.host,
    port: server.port,
    node: process.version,
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    services.log.info('shutting down', { signal });
    await server.close(config.shutdownGraceMs);
    await watcher.stop();
    await services.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`imgpost: ${(err as Error).message}\n`);
  process.exit(1);
});
