/**
 * The one table of accepted image formats. Everything else derives from it: format sniffing in the
 * worker, the stored extension, the Content-Type /media serves, the declared types an upload may
 * carry, the files `imgpost import` picks up, and the OpenAPI document.
 */
export const IMAGE_FORMATS = {
  jpeg: { mime: 'image/jpeg', ext: 'jpg', otherMimes: ['image/jpg', 'image/pjpeg'], fileExts: ['jpg', 'jpeg'] },
  png: { mime: 'image/png', ext: 'png', otherMimes: [], fileExts: ['png'] },
  gif: { mime: 'image/gif', ext: 'gif', otherMimes: [], fileExts: ['gif'] },
  webp: { mime: 'image/webp', ext: 'webp', otherMimes: [], fileExts: ['webp'] },
  avif: { mime: 'image/avif', ext: 'avif', otherMimes: [], fileExts: ['avif'] },
} as const satisfies Record<
  string,
  { mime: string; ext: string; otherMimes: readonly string[]; fileExts: readonly string[] }
>;

export type ImageFormat = keyof typeof IMAGE_FORMATS;

const formats = Object.values(IMAGE_FORMATS);

/** Videos (docs/decisions.md §21): stored extension and Content-Type; animations keep their image types. */
export const VIDEO_FORMATS = {
  webm: { mime: 'video/webm', ext: 'webm', otherMimes: [], fileExts: ['webm'] },
  mp4: { mime: 'video/mp4', ext: 'mp4', otherMimes: [], fileExts: ['mp4', 'm4v'] },
} as const;

const videoFormats = Object.values(VIDEO_FORMATS);

export const VIDEO_MIMES: string[] = videoFormats.map((f) => f.mime);

/** Every stored original's extension: images' and videos'. */
export const MEDIA_EXTS: string[] = [...formats, ...videoFormats].map((f) => f.ext);

/** The canonical MIME types, e.g. for the OpenAPI document. */
export const IMAGE_MIMES: string[] = formats.map((f) => f.mime);

/** Stored extensions (`<id>.<ext>`). */
export const IMAGE_EXTS: string[] = formats.map((f) => f.ext);

// Looked up by a request's Content-Type or a file name's extension: no prototype, so a name such as
// `constructor` finds nothing.
const lookup = (entries: Iterable<readonly [string, string]>): Record<string, string> =>
  Object.assign(Object.create(null), Object.fromEntries(entries));

/** A declared Content-Type (canonical or a common alias) to the stored extension. */
export const EXT_BY_MIME: Record<string, string> = lookup(
  [...formats, ...videoFormats].flatMap((f) => [f.mime, ...f.otherMimes].map((m) => [m, f.ext])),
);

/** Stored extension to Content-Type; thumbnails are `.webp` too. */
export const MIME_BY_EXT: Record<string, string> = lookup([...formats, ...videoFormats].map((f) => [f.ext, f.mime]));

/** File names `imgpost import` picks up: images, animations and videos. */
export const IMPORTABLE_FILE = new RegExp(
  `\\.(?:${[...formats, ...videoFormats].flatMap((f) => f.fileExts).join('|')})$`,
  'i',
);
