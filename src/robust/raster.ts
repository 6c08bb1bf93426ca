/**
 * The one definition of the robust descriptor's grey raster (docs/decisions.md §16): the picture fitted
 * inside DESCRIPTOR_SOURCE px (never enlarged, EXIF orientation applied by the caller's sharp
 * options), then greyscale at most BASE px on the long side. DESCRIPTOR_SOURCE is the small
 * thumbnail's size: a thumbnails task decodes the image for it anyway, so a new post's descriptor
 * costs no decode of its own (workers/hash-worker.ts). The evaluation (bench/robust) reads its
 * rasters through these functions too, so what it measured is what the service computes.
 */
import sharp, { type Sharp } from 'sharp';
import { BASE, DESCRIPTOR_SOURCE, type Grey } from './grey.ts';

const inside = { fit: 'inside', withoutEnlargement: true } as const;

/** The picture at DESCRIPTOR_SOURCE px as raw pixels (sRGB, alpha kept): the decode the small thumbnail shares. */
export const sourceRaster = (image: Sharp) =>
  image.resize(DESCRIPTOR_SOURCE, DESCRIPTOR_SOURCE, inside).raw().toBuffer({ resolveWithObject: true });
export type SourceRaster = Awaited<ReturnType<typeof sourceRaster>>;

/** sharp's input options for a source raster's pixels. */
export const rawInput = ({ info }: SourceRaster) => ({
  raw: { width: info.width, height: info.height, channels: info.channels },
});

/** The descriptor's grey raster from the source raster; undefined when sharp answers more than one band. */
export async function greyRaster(source: SourceRaster): Promise<Grey | undefined> {
  const { data, info } = await sharp(source.data, rawInput(source))
    .greyscale()
    .resize(BASE, BASE, inside)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (data.length !== info.width * info.height) return undefined;
  return { width: info.width, height: info.height, pixels: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}
