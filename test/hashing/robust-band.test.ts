/**
 * The caption band (src/robust/band.ts, issue 25): found above or below a picture when it
 * holds text, never for a plain band (the trim's job) or a photograph alone; its box is the picture.
 */
import test from 'ava';
import sharp, { type Sharp } from 'sharp';
import { TRANSFORMS } from '../../bench/robust/transforms.ts';
import { captionBand } from '../../src/robust/band.ts';
import { BASE, type Grey } from '../../src/robust/grey.ts';

const PHOTO = new URL('../fixtures/photos/coffee.jpg', import.meta.url).pathname;

/** the worker's raster */
async function raster(s: Sharp): Promise<Grey> {
  const { data, info } = await s
    .greyscale()
    .resize(BASE, BASE, { fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

test('a caption band above or below is found, and its box is the picture beside it', async (t) => {
  const captioned = await TRANSFORMS.find((x) => x.name === 'caption')!.apply(PHOTO, 0);
  for (const [where, s] of [
    ['top', sharp(captioned)],
    ['bottom', sharp(captioned).flip()],
  ] as const) {
    const g = await raster(s);
    const box = captionBand(g);
    if (!box) return t.fail(`${where}: no band`);
    // the band is 18 % of the photograph's height: 15 % of the copy's
    const band = g.height - box.h;
    t.true(band >= g.height * 0.13 && band <= g.height * 0.2, `${where}: band of ${band} of ${g.height} rows`);
    t.is(box.y, where === 'top' ? band : 0, where);
    t.is(box.w, g.width, where);
  }
});

test('no band: a photograph alone, a plain white band (the trim peels it), a dark flat picture', async (t) => {
  const plain = sharp(PHOTO).extend({ top: 80, background: '#fff' }).png();
  const dark = sharp({ create: { width: 200, height: 150, channels: 3, background: '#000' } }).png();
  for (const [name, s] of [
    ['photograph', sharp(PHOTO)],
    ['plain band', plain],
    ['flat', dark],
  ] as const)
    t.is(captionBand(await raster(s)), null, name);
});
