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
  // libraries of the repository's own that know nothing of imgpost (lib/go-template: Go's text/template)
  ['lib/go-template'],
  // base: facts and tools every layer may use
  ['src/errors.ts'],
  ['src/log.ts'],
  ['src/util'],
  // the configuration's declarations (src/config.ts reads them)
  ['src/config'],
  ['src/config.ts', 'src/db'],
  // the robust descriptor: its arithmetic, stored form and table (its runner is a thumbnails job, its lookup a search)
  ['src/robust'],
  // the hash worker pool: perceptual hashes, thumbnails and robust descriptors off the event loop
  ['src/hashing'],
  // tables that a post change writes besides the post's own (queued webhook deliveries)
  ['src/webhook-store'],
  // the post kernel: the post record, its tables, file names, the diff, the one commit step
  ['src/kernel'],
  // outside systems: the search engine and the image files
  ['src/elasticsearch', 'src/media-store'],
  // HTTP plumbing shared by every feature's routes (validation, context, the error table)
  ['src/http'],
  // features, each routes → service → repositories/engine, lower lines first
  ['src/thumbnails', 'src/video'],
  ['src/accounts'],
  ['src/tags', 'src/search', 'src/media', 'src/webhooks', 'src/passkeys', 'src/pools'],
  // tag wiki pages and notes over images (docs/decisions.md §23)
  ['src/favorites', 'src/comments', 'src/votes', 'src/wiki', 'src/notes'],
  // the posts feature builds a post repository with its favoriters, commenters and voters
  ['src/posts'],
  // deletion requests and merging duplicates: built on the posts' write steps
  ['src/moderation', 'src/booru', 'src/import'],
  ['src/backup', 'src/health', 'src/observability'],
  // what the app is built from, and the one list of features declared with their endpoints
  ['src/app-services.ts'],
  ['src/features.ts'],
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
/** Units nested in a unit are their own units (none is nested now; kept so a nested unit stays checked). */
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
        // its own files, and lower units nested in a higher one
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
        'the development services (tools/dev-services: the managed local Elasticsearch node and S3Proxy) are ' +
        'started by composition roots and entry points (src/roles, src/cli), tests, bench and scripts; ' +
        'product features never use them',
      severity: 'error',
      from: { path: '^(src|workers|lib)/', pathNot: ['^src/roles/', '^src/cli/'] },
      to: { path: '^tools/dev-services/' },
    },
    {
      name: 'product-not-tools',
      comment:
        'tools/ (the seeder, the client generator) may import the product; the product and the libraries ' +
        'never import tools (the development services have their own rule, above)',
      severity: 'error',
      from: { path: '^(src|workers|lib)/' },
      to: { path: '^tools/', pathNot: '^tools/dev-services/' },
    },
    {
      name: 'not-in-layers',
      comment: 'every source file belongs to a unit of the layer list (add a new folder to it)',
      severity: 'error',
      from: { path: '^(src|workers|lib)/', pathNot: allUnits.map(unitPattern).concat(['\\.d\\.ts$']) },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no loop between files (bench/ too: it is a tool, read like the product)',
      severity: 'error',
      from: { path: '^(src|workers|lib|tools|bench)/' },
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
