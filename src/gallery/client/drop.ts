/**
 * A file picker that also takes a dropped file: a real <input type="file"> inside its <label>
 * (keyboard and screen readers use it as usual), the label being the drop zone. Shows a preview.
 */
import { IMAGE_MIMES } from '../../media-store/formats.ts';
import { h, replace } from './dom.ts';

export interface DropZone {
  el: HTMLElement;
  input: HTMLInputElement;
  file(): File | undefined;
  onChange(fn: (file: File | undefined) => void): void;
}

export function dropZone(id: string, labelText: string): DropZone {
  const input = h('input', { type: 'file', id, name: 'image', accept: IMAGE_MIMES.join(','), required: true });
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

  const changed = () => {
    const file = input.files?.[0];
    if (url) URL.revokeObjectURL(url);
    url = file ? URL.createObjectURL(file) : undefined;
    replace(
      preview,
      file && url
        ? [
            h('img', { src: url, alt: `Preview of ${file.name}` }),
            h('p', {}, `${file.name}, ${Math.ceil(file.size / 1024)} KB`),
          ]
        : [],
    );
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
  return { el, input, file: () => input.files?.[0], onChange: (fn) => listeners.push(fn) };
}
