/**
 * The dependency rule (docs/architecture.md), checked by dependency-cruiser in `npm test`.
 *
 * The layers below are listed from the bottom up. A module may import modules of its own unit
 * (the folder or file named in the list) and of any unit on a LOWER line; never a unit on its own
 * line or a higher one. Units on one line are siblings that know nothing of each other. Because
 * every import points down this one order, no loop between folders can form; `no-circular` also
 * forbids loops between files inside a folder.
 *
 * Inside a feature folder the shape is routes → service → repository: a service knows nothing of
 * HTTP, a repository nothing of its service.
 */
const layers = [
  // base: facts and tools every layer may use
  ['src/errors.ts'],
  ['src/log.ts'],
  ['src/util'],
  // the configuration's declarations (src/config.ts reads them)
  ['src/config'],
  ['src/config.ts', 'src/db', 'src/data-dir', 'src/hashing'],
  // the development services (the managed local Elasticsearch node and S3Proxy) and what they share;
  // only composition roots and entry points may use them (rule dev-services-from-entry-points)
  ['src/dev-services/shared'],
  ['src/dev-services/elasticsearch', 'src/dev-services/s3proxy'],
  // tables that a post change writes besides the post's own (queued webhook deliveries)
  ['src/webhooks/store'],
  // the post kernel: the post record, its tables, file names, the diff, the one commit step
  ['src/kernel'],
  // outside systems: the search engine and the image files
  ['src/elasticsearch', 'src/media/store'],
  // HTTP plumbing shared by every feature's routes (validation, context, the error table)
  ['src/http'],
  ['src/upload'],
  // features, each routes → service → repositories/engine, lower lines first
  ['src/thumbnails', 'src/outbox', 'src/robust'],
  ['src/accounts'],
  ['src/tags', 'src/search', 'src/media', 'src/webhooks', 'src/passkeys', 'src/pools'],
  ['src/posts', 'src/favorites', 'src/comments', 'src/votes'],
  // deletion requests and merging duplicates: built on the posts' write steps
  ['src/moderation', 'src/booru'],
  ['src/backup', 'src/retention', 'src/seed', 'src/health', 'src/observability'],
  // what is built from every feature
  ['src/openapi'],
  ['src/gallery'],
  ['src/app.ts'],
  // composition roots and entry points
  ['src/roles'],
  ['src/server.ts'],
  ['src/cli', 'src/main.ts', 'workers'],
];

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const unitPattern = (unit) => `^${escapeRegExp(unit)}${unit.endsWith('.ts') ? '$' : '/'}`;
const allUnits = layers.flat();
/** Units nested in a unit (src/webhooks/store in src/webhooks) are their own units. */
const nestedIn = (unit) => allUnits.filter((u) => u !== unit && u.startsWith(`${unit}/`));

const layerRules = layers.flatMap((line, rank) =>
  line.map((unit) => {
    const notLower = layers
      .slice(rank)
      .flat()
      .filter((u) => u !== unit);
    const lower = layers.slice(0, rank).flat();
    return {
      name: `layer:${unit}`,
      comment: `${unit} may import only its own unit and units on lower lines of the layer list`,
      severity: 'error',
      from: { path: unitPattern(unit), pathNot: nestedIn(unit).map(unitPattern).concat(['^$']) },
      to: {
        path: notLower.map(unitPattern),
        // its own files, and lower units nested in a higher one (src/media/store in src/media)
        pathNot: [unit, ...lower.filter((u) => notLower.some((n) => u.startsWith(`${n}/`)))].map(unitPattern),
      },
    };
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'dev-services-from-entry-points',
      comment:
        'the development services are started by composition roots and entry points (src/roles, src/cli), ' +
        'tests, bench and scripts; product features never use them',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: ['^src/dev-services/', '^src/roles/', '^src/cli/'] },
      to: { path: '^src/dev-services/' },
    },
    {
      name: 'not-in-layers',
      comment: 'every source file belongs to a unit of the layer list (add a new folder to it)',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: allUnits.map(unitPattern).concat(['\\.d\\.ts$']) },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no loop between files (the bench tool included)',
      severity: 'error',
      from: { path: '^(src|workers|bench)/' },
      to: { circular: true },
    },
    {
      name: 'service-not-http',
      comment: 'services and repositories know nothing of routes',
      severity: 'error',
      from: { path: '(^|/)(service|[a-z-]+-service|repository|[a-z-]+-repository)\\.ts$' },
      to: { path: '(^|/)(routes|[a-z-]+-routes)\\.ts$' },
    },
    {
      name: 'repository-not-service',
      comment: 'a repository knows nothing of its service',
      severity: 'error',
      from: { path: '(^|/)(repository|[a-z-]+-repository)\\.ts$' },
      to: { path: '(^|/)(service|[a-z-]+-service)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a loop of types is still a loop a reader has to untangle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/gallery/client/api-schema\\.d\\.ts$' },
  },
};
