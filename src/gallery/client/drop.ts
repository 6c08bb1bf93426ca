/**
 * A file picker that also takes a dropped file: a real <input type="file"> inside its <label>
 * (keyboard and screen readers use it as usual), the label being the drop zone. Shows a preview.
 */
import { IMAGE_MIMES, VIDEO_MIMES } from '../../media-store/formats.ts';
import { h, replace } from './dom.ts';
import { clock } from './grid.ts';

export interface DropZone {
  el: HTMLElement;
  input: HTMLInputElement;
  file(): File | undefined;
  onChange(fn: (file: File | undefined) => void): void;
  /**
   * docs/decisions.md §21: a picked video's poster frame (at min(1 s, 10 %)) as a PNG, for the
   * possible-duplicates lookup; undefined for anything else
   */
  poster(): Promise<Blob | undefined>;
}

const isVideo = (file: File) => file.type.startsWith('video/') || /\.(webm|mp4|m4v)$/i.test(file.name);

/** Resolves when `video` fires `event` (or at once when `ready()` already holds). */
const when = (video: HTMLVideoElement, event: string, ready: () => boolean) =>
  new Promise<void>((resolve, reject) => {
    if (ready()) return resolve();
    video.addEventListener(event, () => resolve(), { once: true });
    video.addEventListener('error', () => reject(new Error('the video cannot be played here')), { once: true });
  });

/**
 * How long the poster frame may take to read and seek to: a browser that never finishes (seen once under a
 * busy box) would otherwise leave the lookup waiting for good. Past it the lookup sends the file itself.
 */
const POSTER_WAIT_MS = 5_000;

const within = <T>(ms: number, work: Promise<T>): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the poster frame took too long')), ms);
    work.then(resolve, reject).finally(() => clearTimeout(timer));
  });

async function posterOf(video: HTMLVideoElement): Promise<Blob | undefined> {
  await within(
    POSTER_WAIT_MS,
    (async () => {
      await when(video, 'loadedmetadata', () => video.readyState >= 1);
      const seeked = when(video, 'seeked', () => false);
      video.currentTime = Math.min(1, video.duration * 0.1);
      await seeked;
    })(),
  );
  const canvas = h('canvas', { width: video.videoWidth, height: video.videoHeight });
  canvas.getContext('2d')?.drawImage(video, 0, 0);
  return new Promise((resolve) => canvas.toBlob((b) => resolve(b ?? undefined), 'image/png'));
}

export function dropZone(id: string, labelText: string): DropZone {
  const input = h('input', {
    type: 'file',
    id,
    name: 'image',
    accept: [...IMAGE_MIMES, ...VIDEO_MIMES].join(','),
    required: true,
  });
  const preview = h('div', { class: 'preview' });
  const label = h(
    'label',
    { for: id, class: 'drop' },
    h('span', { class: 'drop-text' }, labelText, h('br'), h('small', {}, 'Choose a file, or drop one here')),
    input,
  );
  const el = h('div', { class: 'drop-wrap' }, label, preview);
  const listeners: ((file: File | undefined) => void)[] = [];
  let url: string | undefined;
  let video: HTMLVideoElement | undefined;

  const changed = () => {
    const file = input.files?.[0];
    if (url) URL.revokeObjectURL(url);
    url = file ? URL.createObjectURL(file) : undefined;
    video = undefined;
    const facts = file ? h('p', {}, `${file.name}, ${Math.ceil(file.size / 1024)} KB`) : null;
    if (file && url && isVideo(file)) {
      // Shown, muted, with its duration once its metadata is read.
      video = h('video', { src: url, controls: true, muted: true, playsinline: true, preload: 'metadata' });
      video.muted = true;
      const shown = video;
      shown.addEventListener('loadedmetadata', () => facts?.append(`, video ${clock(shown.duration)}`), { once: true });
    }
    replace(preview, file && url ? [video ?? h('img', { src: url, alt: `Preview of ${file.name}` }), facts] : []);
    for (const fn of listeners) fn(file);
  };
  input.addEventListener('change', changed);
  label.addEventListener('dragover', (e) => {
    e.preventDefault();
    label.classList.add('over');
  });
  label.addEventListener('dragleave', () => label.classList.remove('over'));
  label.addEventListener('drop', (e) => {
    e.preventDefault();
    label.classList.remove('over');
    const files = e.dataTransfer?.files;
    if (!files?.length) return;
    const list = new DataTransfer();
    list.items.add(files[0]);
    input.files = list.files;
    changed();
  });
  return {
    el,
    input,
    file: () => input.files?.[0],
    onChange: (fn) => listeners.push(fn),
    poster: () => (video ? posterOf(video).catch(() => undefined) : Promise.resolve(undefined)),
  };
}
