/**
 * The committed typed client (src/gallery/client/api-schema.d.ts) is what openapi-typescript makes
 * of the service's current OpenAPI document: a change to an endpoint without `npm run gen:client`
 * fails here, so the document, the client and the gallery cannot drift apart.
 */
import fs from 'node:fs';
import test from 'ava';
import { CLIENT_TYPES_FILE, generateClientTypes } from '../../tools/gen-client.ts';

test('the generated client is in sync with the OpenAPI document', async (t) => {
  const committed = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
  const fresh = await generateClientTypes();
  if (committed !== fresh) {
    const a = committed.split('\n');
    const b = fresh.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    t.fail(
      `src/gallery/client/api-schema.d.ts is stale (first difference at line ${line + 1}: ${JSON.stringify(a[line])} vs ${JSON.stringify(b[line])}); run npm run gen:client`,
    );
    return;
  }
  t.pass();
});

test('the client describes every documented operation', async (t) => {
  const { OPERATIONS } = await import('../../src/openapi/operations.ts');
  const text = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
  for (const op of OPERATIONS) t.true(text.includes(`    ${op.operationId}: {`), op.operationId);
});
