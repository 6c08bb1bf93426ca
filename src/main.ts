import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
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
  let server;
  try {
    server = await listen(createApp(services), config.host, config.port);
  } catch (err) {
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
