/**
 * Worker thread: the server's WebhookDispatcher on an event loop of its own (see
 * src/webhooks/dispatcher-thread.ts for why and for the messages). Opens its own connection to the
 * DATA_DIR's database; the server that started it has already brought the schema up to date.
 */
import { parentPort } from 'node:worker_threads';
import { openDatabase, type Db } from '../src/db/sqlite.ts';
import { redact, type Logger, type LogFields, type LogLevel } from '../src/log.ts';
import { Outbox } from '../src/kernel/outbox.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import type { FromWorker, LiveConfig, ToWorker } from '../src/webhooks/dispatcher-thread.ts';
import { WebhookRepository } from '../src/webhook-store/webhook-repository.ts';

const port = parentPort;
if (!port) throw new Error('workers/webhook-dispatcher.ts runs as a worker thread');
const post = (m: FromWorker) => port.postMessage(m);

// Lines go to the server's logger, which writes them where it writes its own; those below its level
// are dropped here, not sent over (a drain logs a debug line per batch of results).
const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
let minLevel = 0;
const emit = (level: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: LogFields) => {
  if (LEVELS.indexOf(level) < minLevel) return;
  post({ type: 'log', level, msg, ...(fields ? { fields: redact(fields) as LogFields } : {}) });
};
const log: Logger = { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };

/** Read by the dispatcher at send time; updated from every message. */
const config: LiveConfig = { webhookAllowPrivate: false, mediaUrl: '' };
let db: Db | undefined;
let dispatcher: WebhookDispatcher | undefined;

// The counters go back now and then, so the server's /metrics stays current.
let reported = '';
setInterval(() => {
  if (!dispatcher) return;
  const now = JSON.stringify(dispatcher.stats);
  if (now !== reported) {
    reported = now;
    post({ type: 'stats', stats: { ...dispatcher.stats } });
  }
}, 500).unref();

const done = (id: number) =>
  post({ type: 'done', id, stats: { ...(dispatcher?.stats ?? { sent: 0, delivered: 0, failed: 0, madeAhead: 0 }) } });

port.on('message', (m: ToWorker) => {
  Object.assign(config, m.config);
  switch (m.type) {
    case 'init':
      minLevel = LEVELS.indexOf(m.logLevel);
      db = openDatabase(m.dataDir);
      dispatcher = new WebhookDispatcher(
        { repo: new WebhookRepository(db), outbox: new Outbox(db), log, config },
        m.options,
      );
      return;
    case 'start':
      return dispatcher?.start();
    case 'kick':
      return dispatcher?.kick();
    case 'configure':
      return dispatcher?.configure(m.options);
    case 'whenIdle':
      void Promise.resolve(dispatcher?.whenIdle()).then(() => done(m.id));
      return;
    case 'stop':
      void Promise.resolve(dispatcher?.stop()).then(() => {
        db?.close();
        done(m.id);
      });
      return;
  }
});
