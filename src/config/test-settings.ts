import { flag, inGroup, wholeNumber } from './define.ts';

const tests = inGroup('tests');

/**
 * The test-only knobs (group `tests` of docs/configuration.md): settings the test suite uses to make
 * behaviour observable or fast, declared as settings.ts declares the others, and part of its tree
 * (their values land at the top of `Config`). Not for a deployment.
 */
export const TEST_SETTINGS = {
  webhookAllowPrivate: tests({
    env: 'WEBHOOK_ALLOW_PRIVATE',
    type: flag,
    default: '0',
    doc: 'lets webhooks target loopback and private addresses',
  }),
  retentionAgeMs: tests({
    env: 'RETENTION_AGE_MS',
    type: wholeNumber(0),
    doc: 'the retention age in milliseconds, overriding `RETENTION_DAYS`',
  }),
  backgroundThumbnails: tests({
    env: 'BACKGROUND_THUMBNAILS',
    type: flag,
    default: '1',
    doc: 'with `0`, uploads leave their thumbnails queued (not made before the answer) and queued thumbnails are left to first requests and the next start',
  }),
  relayMaxBackoffMs: tests({
    env: 'RELAY_MAX_BACKOFF_MS',
    type: wholeNumber(250, 600_000),
    default: '15000',
    doc:
      "the longest wait between the outbox relay's attempts while Elasticsearch is down (the waits double from " +
      '250 ms up to it); the outage tests lower it so the relay catches up soon after the node is back',
  }),
  webhookClaimLeaseMs: tests({
    env: 'WEBHOOK_CLAIM_LEASE_MS',
    type: wholeNumber(1000, 3_600_000),
    shownDefault: 'the webhook time-out (30 s) plus 30 s',
    doc:
      'how long a claimed lane of webhook deliveries stays claimed; what a crashed server had claimed is sent ' +
      'again once it runs out (the crash tests lower it)',
  }),
  passwordHashCost: tests({
    env: 'PASSWORD_HASH_COST',
    type: wholeNumber(10, 20),
    default: '15',
    doc:
      "scrypt's cost (log2 N) for new password hashes; each stored hash carries its own, so every hash verifies " +
      'whatever this says. At 15 a hash is 32 MiB and about 0.1 s of a core; the test apps use 10',
  }),
} as const;
