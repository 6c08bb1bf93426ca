import { z } from 'zod';
import { directory, inGroup, pattern, text, type ValueType } from './define.ts';

/** Defaults of the development services that depend on how they run (set by tools/dev-services). */
export const DEV_SERVICE_DEFAULTS = { esHeap: '512m', esClusterNodeHeap: '384m', s3Port: 9390 } as const;

const portNumber = (max: number, message: string): ValueType<number> => ({
  schema: z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, message),
  accepts: `a port number, 1 to ${max}`,
});
const jvmSize = (example: string) =>
  pattern(/^\d+[kmgKMG]?$/, `expected a JVM size such as ${example}`, 'a JVM size (`256m`, `1g`)');

const devServices = inGroup('devServices');

/** The managed local services (tools/dev-services) and the tools they run with. */
export const DEV_SERVICE_SETTINGS = {
  elasticsearch: {
    home: devServices({
      env: 'IMGPOST_ES_HOME',
      type: directory,
      shownDefault: '`~/.cache/imgpost/elasticsearch` (as root with a private `~`: `/var/cache/imgpost/elasticsearch`)',
      doc: "the managed node's cache: its distribution, data and logs",
    }),
    // The transport port is HTTP + 100, so the upper bound keeps both valid.
    port: devServices({
      env: 'IMGPOST_ES_PORT',
      type: portNumber(65435, 'must be a port number below 65436'),
      default: '9277',
      doc: "the managed node's HTTP port (its transport port is this + 100)",
    }),
    heap: devServices({
      env: 'IMGPOST_ES_HEAP',
      type: jvmSize('512m or 1g'),
      shownDefault:
        `\`${DEV_SERVICE_DEFAULTS.esHeap}\`; ` +
        `\`${DEV_SERVICE_DEFAULTS.esClusterNodeHeap}\` for each node of a local cluster`,
      doc: "the managed node's JVM heap",
    }),
    javaHome: devServices({
      env: 'ES_JAVA_HOME',
      type: text(),
      shownDefault: '`JAVA_HOME`, else as for `JAVA_HOME`',
      doc: 'the JDK the managed node runs on',
    }),
  },
  s3proxy: {
    home: devServices({
      env: 'IMGPOST_S3_HOME',
      type: directory,
      shownDefault: '`~/.cache/imgpost/s3proxy`',
      doc: "the local S3 server's cache: its jar, data, logs and credentials",
    }),
    port: devServices({
      env: 'IMGPOST_S3_PORT',
      type: portNumber(65535, 'must be a port number'),
      shownDefault: `the port its directory last ran on, else \`${DEV_SERVICE_DEFAULTS.s3Port}\``,
      doc: "the local S3 server's port on 127.0.0.1",
    }),
    heap: devServices({
      env: 'IMGPOST_S3_HEAP',
      type: jvmSize('256m'),
      default: '256m',
      doc: "the local S3 server's JVM heap",
    }),
    logLevel: devServices({
      env: 'IMGPOST_S3_LOG_LEVEL',
      type: text(),
      default: 'info',
      doc: "the local S3 server's log level (S3Proxy's `LOG_LEVEL`)",
    }),
  },
  tools: {
    javaHome: devServices({
      env: 'JAVA_HOME',
      type: text(),
      shownDefault: 'the `java` on `PATH`, then `/usr/lib/jvm`',
      doc: 'the JDK the managed services run on and Maven fetches them with',
    }),
    mavenHome: devServices({ env: 'MAVEN_HOME', type: text(), doc: 'where Maven is when `mvn` is not on `PATH`' }),
    m2Home: devServices({ env: 'M2_HOME', type: text(), doc: 'as `MAVEN_HOME` (its older name)' }),
    path: devServices({
      env: 'PATH',
      type: { schema: z.string(), accepts: 'directories, `:`-separated' },
      default: '',
      shownDefault: "the system's",
      doc: 'where `java`, `mvn` and `unzip` are looked for',
    }),
  },
} as const;
