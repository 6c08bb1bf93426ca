/** The words the template generator (template-gen.ts) builds templates from, and its dice. */

/** mulberry32: small, fast, good enough to spread choices. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const FIELDS = [
  '.Event',
  '.ImageID',
  '.Text',
  '.Rating',
  '.Tags',
  '.ImageURL',
  '.CreatedAt',
  '.Uploader',
  '.Uploader.ID',
  '.Uploader.Username',
  '.Initiator',
  '.Initiator.ID',
  '.Initiator.Username',
  '.Changes',
  '.Data.Text',
  '.Data.Tags',
  '.Data.Uploader',
  '.Data.ImageID',
  '.Data.Changes',
  '.Data.Rating',
];
/** Keys of Changes: a nil pointer outside updates, so Go refuses these on create and delete. */
export const CHANGES_FIELDS = [
  '.Changes.text',
  '.Changes.tags',
  '.Changes.rating',
  '.Changes.text.Old',
  '.Changes.text.New',
  '.Changes.tags.Old',
  '.Changes.tags.New',
  '.Changes.rating.New',
  '.Changes.zz',
  '.Changes.zz.Old',
];
export const BAD_FIELDS = ['.Nope', '.Uploader.Nope', '.Data.Nope', '.Text.Len', '.Tags.X', '.Event.Y'];
export const NUMBERS = [
  '0',
  '1',
  '2',
  '-3',
  '42',
  '7',
  '3.5',
  '-2.25',
  '1e3',
  '1e6',
  '100000000.0',
  '123456789.0',
  '0x1F',
  '0o17',
  '0b101',
  '017',
  '1_000',
  '0x1p4',
  '0x1.8p1',
  '1i',
  '2.5i',
  '1+2i',
  '-1.5-2i',
  "'a'",
  "'\\n'",
  "'é'",
  "'\\x41'",
  '9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '9223372036854775808',
  '-0.0',
  '.5',
  '1e21',
  '1e-7',
  '0.1',
  '1e100',
  '-0x1E',
  '0x1E',
  '1.0',
  '255',
  '65',
  '128512',
  '-1',
  '1.5e300',
  '0i',
];
export const STRINGS = [
  '"hi"',
  '"a\\"b"',
  '"<&>"',
  '"\\xff"',
  '"\\u00e9"',
  '"héllo"',
  '""',
  '"\\t"',
  '"%d"',
  '"x y"',
  '"日本"',
  '`raw`',
  '`a\\nb`',
  '"text"',
  '"tags"',
  '"zz"',
  '"\\x00"',
  '"\\u2028"',
  '"a=b&c"',
  '"it\'s"',
];
export const VERBS = 'v v v d s q x X t b c o O U e E f F g G T z %'.split(' ');
export const FLAGS = ['', '', '', '-', '+', '#', ' ', '0', '+#', '-0', '# ', '+ ', '#0'];
export const WIDTHS = ['', '', '', '1', '3', '5', '8', '12', '*'];
export const PRECS = ['', '', '', '.', '.0', '.1', '.2', '.3', '.5', '.8', '.*'];
export const INDEXES = ['', '', '', '', '', '', '[1]', '[2]', '[3]', '[0]', '[9]'];
export const NUMS = [
  '0',
  '1',
  '2',
  '-3',
  '42',
  '7',
  '.ImageID',
  '.Uploader.ID',
  '3.5',
  '1e3',
  "'a'",
  '-0.0',
  '1i',
  '1+2i',
];
export const STRS = ['.Text', '.Event', '"hi"', '"update"', '.Uploader.Username', '"<&>"', '"héllo"', '.Rating', '""'];
export const FUNCS1 = ['len', 'html', 'js', 'urlquery', 'json', 'print', 'println', 'not', 'call'];
export const CMP = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
