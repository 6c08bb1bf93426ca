/** The search box's segment syntax (docs/decisions.md §12) as the gallery sends it to /image/search. */
import test from 'ava';
import { booruTags, parseQuery, withSegment } from '../../src/gallery/client/query.ts';

test('each kind of segment', (t) => {
  const q = parseQuery('sunset "red sky" +beach -night rating:moderate by:alice_1 big waves');
  t.deepEqual(q.conditions, [
    { type: 'textContains', value: 'red sky' },
    { type: 'tagInclude', value: 'beach' },
    { type: 'tagExclude', value: 'night' },
    { type: 'ratingEq', value: 'moderate' },
    { type: 'uploadedBy', value: 'alice_1' },
    { type: 'textMatch', value: 'sunset big waves' },
  ]);
  t.is(q.orderBy, 'relevance');
  t.deepEqual(q.problems, []);
});

test('sort: new, old and relevance; words rank by relevance unless sorted otherwise', (t) => {
  t.deepEqual(pick(parseQuery('+cat')), ['uploadDate', 'desc']);
  t.deepEqual(pick(parseQuery('+cat sort:old')), ['uploadDate', 'asc']);
  t.deepEqual(pick(parseQuery('cat')), ['relevance', 'desc']);
  t.deepEqual(pick(parseQuery('cat sort:new')), ['uploadDate', 'desc']);
  t.deepEqual(pick(parseQuery('sort:RELEVANCE')), ['relevance', 'desc']);
  t.deepEqual(pick(parseQuery('cat sort:score')), ['score', 'desc']);
  t.deepEqual(pick(parseQuery('+cat sort:Comments')), ['comments', 'desc']);
  t.deepEqual(parseQuery('sort:random').problems, ['sort:random (sort is new, old, relevance, score or comments)']);
});

test('edge cases: empty, lone signs, unclosed and empty phrases, a colon inside a word', (t) => {
  t.deepEqual(parseQuery('').conditions, []);
  t.deepEqual(parseQuery('  + - ""  ').conditions, []);
  t.deepEqual(parseQuery('"open phrase').conditions, [{ type: 'textContains', value: 'open phrase' }]);
  t.deepEqual(parseQuery('+c++ 10:30').conditions, [
    { type: 'tagInclude', value: 'c++' },
    { type: 'textMatch', value: '10:30' },
  ]);
  t.deepEqual(parseQuery('RATING:Violent').conditions, [{ type: 'ratingEq', value: 'violent' }]);
});

test('withSegment adds a facet segment once', (t) => {
  t.is(withSegment('cat ', '+cute'), 'cat +cute');
  t.is(withSegment('cat +cute', '+cute'), 'cat +cute');
  t.is(withSegment('', 'rating:none'), 'rating:none');
});

const pick = (q: ReturnType<typeof parseQuery>) => [q.orderBy, q.order];

test('~tag: every ~tag of a query joins one OR group (tagAny, docs/decisions.md §15)', (t) => {
  t.deepEqual(parseQuery('~cat ~dog +pet -night ~').conditions, [
    { type: 'tagAny', value: 'cat' },
    { type: 'tagAny', value: 'dog' },
    { type: 'tagInclude', value: 'pet' },
    { type: 'tagExclude', value: 'night' },
  ]);
});

test('a search in the Danbooru spelling, for its Atom feed (docs/decisions.md §20)', (t) => {
  t.is(
    booruTags(parseQuery('sunset "red sky" +beach -re:zero ~-dash rating:moderate by:alice')),
    'text:"red sky" beach -re\\:zero ~\\-dash rating:moderate user:alice text:sunset',
  );
  t.is(booruTags(parseQuery('')), '');
});
