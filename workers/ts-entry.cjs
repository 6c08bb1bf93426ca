// Entry of a worker thread whose code is TypeScript: `workerData.entry` names the .ts file.
// In a worker thread tsx compiles what is require()d (its CommonJS hooks come with the inherited
// --require/--import flags) but not a .ts entry file, nor an import() from an eval'd entry, so this
// plain script requires it, as piscina's own entry does for the hash worker.
require(require('node:worker_threads').workerData.entry);
