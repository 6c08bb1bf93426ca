/**
 * Adversarial building blocks for the fuzzer: hostile values, broken JSON, hostile images
 * (decompression bombs with valid CRCs), and multipart bodies built byte by byte.
 */
import zlib from 'node:zlib';
import fc from 'fast-check';

// ---- values ---------------------------------------------------------------------------------

/** A JSON number literal JSON.stringify cannot produce; `json()` below swaps these in. */
const rawNumber = (literal: string) => `@@NUM:${literal}@@`;

export const hostileStrings: string[] = [
  '',
  ' ',
  '\t\n',
  'a'.repeat(10_001),
  'x'.repeat(100_000),
  '\u0000',
  'nul\u0000inside',
  '\ud800',
  'lone \udfff low',
  '😀'.repeat(20),
  '\u202eRTL',
  'e\u0301',
  '%',
  '%00',
  '%2e%2e%2f',
  '*',
  '?',
  '\\',
  '"',
  "'",
  '*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?',
  '.*'.repeat(300),
  '<script>alert(1)</script>',
  '${7*7}',
  '{{.}}',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'null',
  'undefined',
  'NaN',
  '1e999',
  '-0',
  '2024-02-30',
  '2024-13-01',
  '0000-00-00',
  '9999-12-31T23:59:59Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T10:00:00+02:00',
  '+275760-09-13',
  '1970-01-01',
  '2024-05-01',
  '2024-05-01T10:00:00Z',
  'none',
  'moderate',
  'violent',
  'violet',
  'VIOLENT',
  'tag with space',
  'ok_tag',
  '0',
  '1',
  '-1',
  '9007199254740993',
  '1'.repeat(400),
  'seeduser1',
  'x'.repeat(65),
  '01234567-89ab-7def-8123-456789abcdef',
  'contains',
  'include',
  'gt',
  'untagged',
  'disowned',
  'createdAt',
  'uploaderId',
  'asc',
  'desc',
];

export const hostileNumbers: unknown[] = [
  0,
  -1,
  1,
  1.5,
  -0.0001,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e308,
  5e-324,
  rawNumber('1e999'),
  rawNumber('-1e999'),
  rawNumber('123456789012345678901234567890'),
  rawNumber('-0'),
  rawNumber('1E+2'),
  rawNumber('0.1e-400'),
];

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...hostileStrings) },
  { weight: 3, arbitrary: fc.constantFrom(...hostileNumbers) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [[]], { a: { b: {} } }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...hostileStrings), { maxLength: 70 }) },
);

/** JSON text for a value, with raw number literals swapped in. */
export function json(value: unknown): Buffer {
  const text = JSON.stringify(value) ?? 'null';
  return Buffer.from(text.replace(/"@@NUM:([^@]*)@@"/g, '$1'), 'utf8');
}

/** 10,000-deep (and deeper) nesting, bare or hidden inside an otherwise plausible field. */
export const deepJson = fc
  .tuple(
    fc.constantFrom(1_000, 10_000, 100_000, 200_000),
    fc.constantFrom('array', 'object', 'in-field', 'unclosed'),
    fc.constantFrom('text', 'filter', 'conditions', 'username', 'template', 'tags'),
  )
  .map(([depth, shape, field]) => {
    if (shape === 'array') return '['.repeat(depth) + ']'.repeat(depth);
    if (shape === 'object') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    if (shape === 'unclosed') return '['.repeat(depth);
    return `{"${field}":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  })
  .map((s) => Buffer.from(s));

/** Bytes that are not valid UTF-8, inside an otherwise valid JSON document. */
const BAD_UTF8 = [
  [0xc3, 0x28],
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xf0, 0x9f, 0x98],
];
export const badUtf8Json = fc
  .tuple(
    fc.constantFrom('text', 'username', 'password', 'value', 'template', 'url'),
    fc.constantFrom(...BAD_UTF8),
    fc.boolean(),
  )
  .map(([field, bytes, inKey]) =>
    Buffer.concat(
      inKey
        ? [Buffer.from('{"'), Buffer.from(bytes), Buffer.from(`":"x"}`)]
        : [Buffer.from(`{"${field}":"a`), Buffer.from(bytes), Buffer.from('b"}')],
    ),
  );

/** Syntactically broken JSON: a valid document cut short, spliced, or just not JSON. */
export const brokenJson = fc
  .oneof(
    fc.tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat()).map(([v, n]) => {
      const text = JSON.stringify(v);
      return text.slice(0, Math.max(1, n % text.length));
    }),
    fc
      .tuple(
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom('}', ']', ',', ':', '"', '\\', "'", 'NaN', 'undefined', '\u0000'),
        fc.nat(),
      )
      .map(([v, junk, n]) => {
        const text = JSON.stringify(v);
        const at = n % (text.length + 1);
        return text.slice(0, at) + junk + text.slice(at);
      }),
    fc.constantFrom(
      '{',
      '}',
      '{"text":',
      "{'text':'x'}",
      '{text:"x"}',
      '[1,]',
      '{"a":1,}',
      'tru',
      '--',
      '{"a":"\\x41"}',
      '{"a":"\\u12"}',
      '{"a":1}{"b":2}',
      '/* c */{}',
      '{"__proto__":',
    ),
  )
  .filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  })
  .map((s) => Buffer.from(s, 'utf8'));

// ---- images ---------------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** A PNG whose IHDR (with a correct CRC) declares width x height; `idat` is the compressed pixel stream. */
export function png(width: number, height: number, idat: Buffer, colorType = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = colorType;
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A few hundred bytes that claim 30,000 x 30,000 (900 megapixels). */
export const pngBomb = png(30_000, 30_000, zlib.deflateSync(Buffer.alloc(30_001 * 4)));

let zeroBomb: Buffer | undefined;
/**
 * A real decompression bomb below the pixel cap: 8,000 x 8,000 grey zeros (64 MB of pixels)
 * in about 60 KB. Valid, so it is only sent where it cannot be stored. Built once, lazily.
 */
export function pngZeroBomb(): Buffer {
  zeroBomb ??= png(8_000, 8_000, zlib.deflateSync(Buffer.alloc(8_001 * 8_000), { level: 9 }));
  return zeroBomb;
}

/**
 * GIF and JPEG headers declaring 65,535 x 65,535, followed by junk. The GIF's frame declares that
 * size too: with a 0 x 0 frame in a huge screen, libvips' GIF loader decodes a valid 1 x 1 image,
 * which an upload then stores (fuzz seed 163718237 found it).
 */
export const gifBomb = Buffer.concat([
  Buffer.from('GIF89a'),
  Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00]),
  Buffer.from('2c00000000ffffffff00020144003b', 'hex'),
]);
export const jpegBomb = Buffer.from(
  'ffd8ffe000104a46494600010100000100010000ffc0000b08ffffffff01011100ffda0008010100003f00d2cf20ffd9',
  'hex',
);

/**
 * Copies of the real PNG made by junkImages (cut short, or with one byte flipped). Some still decode:
 * a flip inside an ancillary chunk (pHYs...) only breaks that chunk's CRC and the decoder drops the
 * chunk. CRC-32 catches every single-byte change in a critical chunk, so a copy that decodes has the
 * original's pixels, and the only thing that may store it is `force`: the upload arbitrary turns force
 * off for every buffer in this set, as for the original itself.
 */
export const copiesOfRealImage = new WeakSet<Buffer>();
const copyOfRealImage = (bytes: Buffer) => {
  copiesOfRealImage.add(bytes);
  return { bytes, type: 'image/png' };
};

export const junkImages = (validPng: Buffer): fc.Arbitrary<{ bytes: Buffer; type: string }> =>
  fc.oneof(
    fc.constantFrom(
      { bytes: pngBomb, type: 'image/png' },
      { bytes: png(0, 0, zlib.deflateSync(Buffer.alloc(1))), type: 'image/png' },
      { bytes: png(2 ** 31 - 1, 1, zlib.deflateSync(Buffer.alloc(16))), type: 'image/png' },
      { bytes: png(30_000, 30_000, zlib.deflateSync(Buffer.alloc(64)), 6), type: 'image/png' },
      { bytes: gifBomb, type: 'image/gif' },
      { bytes: jpegBomb, type: 'image/jpeg' },
      {
        bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1e9" height="1e9"/>'),
        type: 'image/svg+xml',
      },
      {
        bytes: Buffer.from(
          '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg>&b;</svg>',
        ),
        type: 'image/png',
      },
      { bytes: Buffer.from('%PDF-1.4\n%\xe2\xe3'), type: 'image/png' },
      { bytes: Buffer.from('II*\0\x08\0\0\0', 'latin1'), type: 'image/tiff' },
      { bytes: Buffer.alloc(0), type: 'image/png' },
      { bytes: Buffer.from('RIFF\xff\xff\xff\x7fWEBPVP8X', 'latin1'), type: 'image/webp' },
      { bytes: Buffer.from('\0\0\0\x1cftypavif\0\0\0\0avifmif1', 'latin1'), type: 'image/avif' },
    ),
    // A real PNG cut short, or with a flipped byte (CRC now wrong, or pixel data corrupt).
    fc.nat().map((n) => copyOfRealImage(validPng.subarray(0, 8 + (n % (validPng.length - 9))))),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([n, x]) => {
      const b = Buffer.from(validPng);
      b[8 + (n % (b.length - 8))] ^= x;
      return copyOfRealImage(b);
    }),
    fc.uint8Array({ maxLength: 2048 }).map((a) => ({ bytes: Buffer.from(a), type: 'image/jpeg' })),
  );

// ---- multipart ------------------------------------------------------------------------------

export interface Part {
  /** undefined: no name parameter at all */
  name?: string;
  filename?: string;
  type?: string;
  content: Buffer;
  /** extra raw header lines for this part */
  headers?: string[];
}

export function multipartBody(
  boundary: string,
  parts: Part[],
  opts: { close?: boolean; eol?: string; preamble?: string } = {},
): Buffer {
  const eol = opts.eol ?? '\r\n';
  const out: Buffer[] = [];
  if (opts.preamble) out.push(Buffer.from(opts.preamble + eol, 'latin1'));
  for (const p of parts) {
    const disposition = [
      'form-data',
      p.name !== undefined ? `name="${p.name}"` : '',
      p.filename !== undefined ? `filename="${p.filename}"` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const lines = [
      `--${boundary}`,
      `Content-Disposition: ${disposition}`,
      ...(p.type !== undefined ? [`Content-Type: ${p.type}`] : []),
      ...(p.headers ?? []),
    ];
    out.push(Buffer.from(lines.join(eol) + eol + eol, 'latin1'), p.content, Buffer.from(eol));
  }
  if (opts.close !== false) out.push(Buffer.from(`--${boundary}--${eol}`, 'latin1'));
  return Buffer.concat(out);
}
