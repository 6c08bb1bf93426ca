/**
 * The default template's body written without the engine (src/webhooks/default-body.ts) is the engine's, byte for
 * byte, over random payloads: text with every kind of character Go's json escapes or replaces (control characters,
 * <, >, &, U+2028/9, lone surrogates, quotes and backslashes next to letters), any tags, any changes, with and
 * without uploader and initiator.
 */
import test from 'ava';
import fc from 'fast-check';
import { compileTemplate, fromBytes } from '../../lib/go-template/index.ts';
import { defaultBody } from '../../src/webhooks/default-body.ts';
import { DEFAULT_TEMPLATE } from '../../src/webhooks/event-data.ts';
import { payloadValue, type PayloadJSON } from '../../src/webhooks/payload-types.ts';
import { renderBody } from '../../src/webhooks/service.ts';

const engine = compileTemplate(DEFAULT_TEMPLATE);
const byEngine = (p: PayloadJSON) => fromBytes(engine.render(payloadValue(p)));

const char = fc.oneof(
  fc.constantFrom('<', '>', '&', '\u2028', '\u2029', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u001f', '\u007f'),
  fc.constantFrom('\\', '"', 'b', 'f', 'u', '\\b', '\\f', '\\u0026', '\ud800', '\udfff', '\ufffd', 'é', '😀', '漢'),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const text = fc.string({ unit: char, maxLength: 40 });
const user = fc.record({ id: fc.integer({ min: 1, max: 2 ** 40 }), username: text });
const change = fc.record({
  old: fc.oneof(text, fc.array(text, { maxLength: 4 })),
  new: fc.oneof(text, fc.array(text, { maxLength: 4 })),
});
const payload: fc.Arbitrary<PayloadJSON> = fc.record(
  {
    event: fc.constantFrom('create', 'update', 'delete'),
    data: fc.record(
      {
        imageID: fc.integer({ min: 1, max: 2 ** 40 }),
        text,
        rating: fc.constantFrom('safe', 'moderate', 'violet', 'violent'),
        tags: fc.array(text, { maxLength: 6 }),
        imageURL: text,
        createdAt: text,
        changes: fc.dictionary(fc.constantFrom('text', 'tags', 'rating', 'source', 'parent'), change, { maxKeys: 5 }),
        uploader: user,
      },
      { requiredKeys: ['imageID', 'text', 'rating', 'tags', 'imageURL', 'createdAt'] },
    ),
    initiator: user,
  },
  { requiredKeys: ['event', 'data'] },
);

test("the default body without the engine is the engine's, byte for byte, over random payloads", (t) => {
  fc.assert(
    fc.property(payload, (p) => defaultBody(p) === byEngine(p)),
    { numRuns: 3000 },
  );
  t.pass();
});

test('renderBody uses it for the default template and for a template that is the default text; the body is JSON', (t) => {
  fc.assert(
    fc.property(payload, (p) => {
      const data = { json: p, value: payloadValue(p) };
      const body = renderBody(null, data);
      return body === byEngine(p) && renderBody(DEFAULT_TEMPLATE, data) === body && JSON.parse(body) !== undefined;
    }),
    { numRuns: 500 },
  );
  t.pass();
});
