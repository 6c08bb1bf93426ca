import { createRequire } from 'node:module';

/**
 * The AWS SDK, loaded the first time an S3 client is made rather than when the media store's module
 * is imported: every process imports the store (the wiring offers both kinds), most run on the
 * local store, and the SDK adds to start-up (bench/notes/code-figures.md), paid by each of the hundreds of CLI
 * processes the test suite starts. `require` keeps the load synchronous, so the store's constructor
 * stays synchronous too.
 */
type ClientModule = typeof import('@aws-sdk/client-s3');
type PresignerModule = typeof import('@aws-sdk/s3-request-presigner');

const load = createRequire(import.meta.url);
let client: ClientModule | undefined;
let presigner: PresignerModule | undefined;

export const s3Sdk = (): ClientModule => (client ??= load('@aws-sdk/client-s3') as ClientModule);
export const s3Presigner = (): PresignerModule =>
  (presigner ??= load('@aws-sdk/s3-request-presigner') as PresignerModule);
