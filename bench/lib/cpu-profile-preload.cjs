/**
 * `NODE_OPTIONS="--require <this file>" CPU_PROFILE_DIR=DIR npm start`: a V8 CPU profile of each
 * Node process started that way, written to DIR/<pid>.cpuprofile when it exits (node --cpu-prof is
 * not allowed in NODE_OPTIONS, and the bench starts the server through `npm start`, whatever that
 * runs). Read one with bench/lib/profile-summary.ts; the server's pid is in its "listening" line.
 */
const inspector = require('node:inspector');
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.CPU_PROFILE_DIR;
if (dir && require('node:worker_threads').isMainThread) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // The in-process session answers synchronously, so this runs inside the exit handler.
    session.post('Profiler.stop', (err, res) => {
      if (!err) fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
