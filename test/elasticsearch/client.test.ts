/**
 * The client library loads apache-arrow only when its ES|QL Arrow helpers first use it
 * (src/elasticsearch/client.ts, deferArrow): a client is made without it, and the helpers then get the
 * real module.
 */
import test from 'ava';
import { createRequire } from 'node:module';
import { createEsClient } from '../../src/elasticsearch/client.ts';

const fromTest = createRequire(import.meta.url);
/** apache-arrow's files in the module cache. */
const arrowFiles = () => Object.keys(fromTest.cache).filter((f) => f.includes('/node_modules/apache-arrow/'));

test('a client is made without loading apache-arrow; the helpers get the real module at first use', (t) => {
  const es = createEsClient({ url: 'http://127.0.0.1:9', indexPrefix: 'client-test' });
  t.truthy(es.helpers);
  t.is(arrowFiles().length, 1, 'only the stand-in');

  // What the client's helpers require, as they require it.
  const arrow = createRequire(fromTest.resolve('@elastic/elasticsearch'))('apache-arrow/Arrow.node') as {
    tableFromArrays(columns: Record<string, Int32Array>): { numRows: number };
    tableToIPC(table: unknown): Uint8Array;
    tableFromIPC(bytes: Uint8Array): { numRows: number; getChild(name: string): { toArray(): Int32Array } | null };
  };
  const table = arrow.tableFromArrays({ id: Int32Array.of(3, 5, 8) });
  const back = arrow.tableFromIPC(arrow.tableToIPC(table));
  t.is(back.numRows, 3);
  t.deepEqual([...back.getChild('id')!.toArray()], [3, 5, 8]);
  t.true(arrowFiles().length > 100, 'the real module, loaded now');
});
