/**
 * Notes over a post's image (docs/decisions.md §23). Each box is placed in percentages of the image's drawn
 * area (the image is letterboxed in a 4:3 frame, so that area is placed in percentages of the frame too):
 * nothing is measured in pixels on screen, so the boxes stay in place at every width without redrawing.
 * A note is a focusable button whose text shows on hover or focus, always on touch screens, and the whole
 * layer is toggled by a button. Holders of 0x4 draw a box to add one (or type its numbers: the keyboard way),
 * move a note by dragging it and resize it by its corner handle, or with the arrow keys while it has focus
 * (Shift resizes), the box kept inside the image; each move is saved as a new version, at the version read.
 * A click or Enter opens its form: text, place and size (numbers), or delete. Bodies render as comments do
 * (./comment-text.ts): text only.
 */
import { api, can, errorText, ok, PERMISSION, type Post, type Schemas, type Self } from './api.ts';
import { commentText } from './comment-text.ts';
import { h, messageBox, replace } from './dom.ts';

type Note = Schemas['Note'];
interface Size {
  width: number;
  height: number;
}
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, Math.round(n)));

/** `b` moved (or, `resize`, its size changed) by (dx, dy) image pixels, kept inside the image. */
function shifted(b: Box, dx: number, dy: number, resize: boolean, size: Size): Box {
  return resize
    ? { ...b, width: clamp(b.width + dx, 1, size.width - b.x), height: clamp(b.height + dy, 1, size.height - b.y) }
    : { ...b, x: clamp(b.x + dx, 0, size.width - b.width), y: clamp(b.y + dy, 0, size.height - b.height) };
}

const ARROWS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};
/** A burst of arrow keys is one change: saved once the keys pause this long. */
const KEY_SAVE_MS = 500;
/** A press that moves less than this (screen pixels) is a click, not a drag. */
const DRAG_SLOP = 4;

/**
 * The image's real size in pixels, as the post states it (the page shows a thumbnail; the full-size file is
 * never downloaded for its size, docs/decisions.md §24).
 */
const imageSize = (post: Post): Size => ({ width: post.media.width, height: post.media.height });

const pct = (n: number) => `${n}%`;

/** Places `el` at a box given in image pixels, in percentages of the stage (the image's drawn area). */
function place(el: HTMLElement, box: { x: number; y: number; width: number; height: number }, size: Size) {
  el.style.left = pct((box.x / size.width) * 100);
  el.style.top = pct((box.y / size.height) * 100);
  el.style.width = pct((box.width / size.width) * 100);
  el.style.height = pct((box.height / size.height) * 100);
}

function numberField(id: string, label: string, value: number, max: number): [HTMLLabelElement, HTMLInputElement] {
  const input = h('input', { id, type: 'number', min: 0, max, step: 1, value }) as HTMLInputElement;
  return [h('label', { for: id }, label), input];
}

/** The figure's image wrapped with the notes layer, and the panel below it (toggle, add, edit). */
export function notesLayer(
  post: Post,
  self: Self | undefined,
  image: HTMLElement,
): { frame: HTMLElement; panel: HTMLElement } {
  const stage = h('div', { class: 'note-stage', 'aria-label': 'Notes' });
  const frame = h('div', { class: 'note-frame' }, image, stage);
  const msg = messageBox();
  const toggle = h(
    'button',
    { type: 'button', class: 'secondary', 'aria-pressed': 'true', id: 'notes-toggle' },
    'Hide notes',
  );
  toggle.addEventListener('click', () => {
    const hidden = frame.classList.toggle('notes-hidden');
    toggle.setAttribute('aria-pressed', String(!hidden));
    toggle.textContent = hidden ? 'Show notes' : 'Hide notes';
  });
  const editor = h('div', { class: 'note-editor' });
  const editing = can(self, PERMISSION.edit);
  const addButton = editing ? h('button', { type: 'button', id: 'note-add' }, 'Add a note') : null;
  const panel = h(
    'div',
    { class: 'notes-panel' },
    h('p', { class: 'notes-actions' }, toggle, ' ', addButton),
    editing
      ? h(
          'p',
          { class: 'notes-hint', id: 'notes-hint' },
          'Drag a note to move it, its corner to resize it; or focus it and use the arrow keys (with Shift to resize).',
        )
      : null,
    msg.el,
    editor,
  );

  void (async () => {
    const size = imageSize(post);
    if (!size.width || !size.height) return;
    // the stage covers the image's drawn area inside the 4:3 frame (object-fit: contain)
    const aspect = size.width / size.height;
    if (aspect >= 4 / 3) {
      const h100 = (4 / 3 / aspect) * 100;
      stage.style.left = '0';
      stage.style.width = '100%';
      stage.style.top = pct((100 - h100) / 2);
      stage.style.height = pct(h100);
    } else {
      const w100 = (aspect / (4 / 3)) * 100;
      stage.style.top = '0';
      stage.style.height = '100%';
      stage.style.left = pct((100 - w100) / 2);
      stage.style.width = pct(w100);
    }
    const draw = async () => {
      const notes = await ok(api.GET('/api/post/{id}/note', { params: { path: { id: post.id } } }));
      // the note that had focus keeps it (a keyboard move redraws the layer)
      const focused = stage.contains(document.activeElement)
        ? (document.activeElement as HTMLElement).dataset.note
        : '';
      replace(
        stage,
        notes.map((n) => {
          const box = h(
            'button',
            {
              type: 'button',
              class: 'note',
              'data-note': n.id,
              'data-version': n.version,
              'aria-label': `Note: ${n.body.slice(0, 80)}`,
              'aria-describedby': editing ? 'notes-hint' : undefined,
            },
            h('span', { class: 'note-body' }, commentText(n.body)),
          );
          place(box, n, size);
          // a note on the right half opens its text leftwards, so it stays on the page at any width
          if (n.x + n.width / 2 > size.width / 2) box.classList.add('note-right');
          if (editing) movable(box, n);
          return box;
        }),
      );
      if (focused) (stage.querySelector(`[data-note="${focused}"]`) as HTMLElement | null)?.focus();
      stage.dataset.ready = '1';
    };

    /** A new version of the note with this box, at the version shown; then the layer as stored. */
    const save = async (n: Note, box: Box) => {
      try {
        const { x, y, width, height } = box;
        await ok(
          api.PATCH('/api/note/{id}', {
            params: { path: { id: String(n.id) } },
            body: { x, y, width, height, version: n.version },
          }),
        );
        msg.clear();
      } catch (err) {
        msg.error(errorText(err));
      }
      await draw();
    };

    /** Dragging moves the note, its handle resizes it, arrow keys do either; a click opens its form. */
    const movable = (el: HTMLElement, n: Note) => {
      el.append(h('span', { class: 'note-handle', 'aria-hidden': 'true' }));
      let dragged = false;
      el.addEventListener('pointerdown', (e) => {
        if (frame.classList.contains('drawing') || e.button !== 0) return;
        dragged = false;
        const resize = (e.target as Element).classList.contains('note-handle');
        const r = stage.getBoundingClientRect();
        const from = { x: e.clientX, y: e.clientY };
        let now: Box = n;
        el.setPointerCapture(e.pointerId);
        const onMove = (m: PointerEvent) => {
          if (!dragged && Math.hypot(m.clientX - from.x, m.clientY - from.y) < DRAG_SLOP) return;
          dragged = true;
          const dx = ((m.clientX - from.x) / r.width) * size.width;
          const dy = ((m.clientY - from.y) / r.height) * size.height;
          now = shifted(n, dx, dy, resize, size);
          place(el, now, size);
        };
        const onUp = () => {
          el.removeEventListener('pointermove', onMove);
          el.removeEventListener('pointerup', onUp);
          el.removeEventListener('pointercancel', onUp);
          if (dragged) void save(n, now);
        };
        el.addEventListener('pointermove', onMove);
        el.addEventListener('pointerup', onUp);
        el.addEventListener('pointercancel', onUp);
      });
      // the click that ends a drag is no click
      el.addEventListener('click', () => {
        if (dragged) dragged = false;
        else edit(n);
      });
      let pending: Box | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      el.addEventListener('keydown', (e) => {
        const arrow = ARROWS[e.key];
        if (!arrow || e.ctrlKey || e.metaKey) return;
        e.preventDefault();
        // a hundredth of the image per press; with Alt, one pixel
        const unit = e.altKey ? 1 : Math.max(1, Math.round(Math.max(size.width, size.height) / 100));
        pending = shifted(pending ?? n, arrow[0] * unit, arrow[1] * unit, e.shiftKey, size);
        place(el, pending, size);
        clearTimeout(timer);
        timer = setTimeout(() => {
          const box = pending!;
          pending = undefined;
          void save(n, box);
        }, KEY_SAVE_MS);
      });
    };

    /** The form for a note: its text and numbers; new when `note` is undefined. */
    const form = (note: Note | undefined, start: { x: number; y: number; width: number; height: number }) => {
      const text = h('textarea', { id: 'note-body', rows: 3, maxlength: 10000 }) as HTMLTextAreaElement;
      text.value = note?.body ?? '';
      const [lx, x] = numberField('note-x', 'Left', start.x, size.width - 1);
      const [ly, y] = numberField('note-y', 'Top', start.y, size.height - 1);
      const [lw, w] = numberField('note-width', 'Width', start.width, size.width);
      const [lh, hh] = numberField('note-height', 'Height', start.height, size.height);
      const f = h(
        'form',
        { class: 'note-form', 'aria-label': note ? 'Edit the note' : 'New note' },
        h('label', { for: 'note-body' }, 'Note text'),
        text,
        h('div', { class: 'note-numbers' }, lx, x, ly, y, lw, w, lh, hh),
        h('button', { type: 'submit' }, note ? 'Save the note' : 'Add the note'),
        note
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                onclick: () =>
                  void ok(api.DELETE('/api/note/{id}', { params: { path: { id: String(note.id) } } }))
                    .then(() => {
                      editor.replaceChildren();
                      return draw();
                    })
                    .catch((err: unknown) => msg.error(errorText(err))),
              },
              'Delete the note',
            )
          : null,
        h('button', { type: 'button', class: 'secondary', onclick: () => editor.replaceChildren() }, 'Cancel'),
      );
      f.addEventListener('submit', async (e) => {
        e.preventDefault();
        const values = {
          x: Number(x.value),
          y: Number(y.value),
          width: Number(w.value),
          height: Number(hh.value),
          body: text.value,
        };
        try {
          if (note)
            await ok(
              api.PATCH('/api/note/{id}', {
                params: { path: { id: String(note.id) } },
                body: { ...values, version: note.version },
              }),
            );
          else await ok(api.POST('/api/post/{id}/note', { params: { path: { id: post.id } }, body: values }));
          editor.replaceChildren();
          msg.clear();
          await draw();
        } catch (err) {
          msg.error(errorText(err));
        }
      });
      replace(editor, f);
      text.focus();
    };
    const edit = (n: Note) => form(n, n);

    if (addButton) {
      // Draw a box with the pointer, or press the button twice (keyboard): a box in the middle to adjust.
      addButton.addEventListener('click', () => {
        if (frame.classList.contains('drawing')) {
          frame.classList.remove('drawing');
          form(undefined, {
            x: Math.floor(size.width / 4),
            y: Math.floor(size.height / 4),
            width: Math.max(1, Math.floor(size.width / 2)),
            height: Math.max(1, Math.floor(size.height / 2)),
          });
          return;
        }
        frame.classList.add('drawing');
        frame.classList.remove('notes-hidden');
        msg.info('Draw the box over the picture, or press “Add a note” again to type its numbers.');
      });
      let start: { x: number; y: number } | undefined;
      const draft = h('div', { class: 'note draft' });
      const at = (e: PointerEvent) => {
        const r = stage.getBoundingClientRect();
        return {
          x: Math.min(size.width, Math.max(0, ((e.clientX - r.left) / r.width) * size.width)),
          y: Math.min(size.height, Math.max(0, ((e.clientY - r.top) / r.height) * size.height)),
        };
      };
      const boxOf = (a: { x: number; y: number }, b: { x: number; y: number }) => {
        const x = Math.floor(Math.min(a.x, b.x));
        const y = Math.floor(Math.min(a.y, b.y));
        return {
          x,
          y,
          width: Math.max(1, Math.min(size.width - x, Math.round(Math.abs(a.x - b.x)))),
          height: Math.max(1, Math.min(size.height - y, Math.round(Math.abs(a.y - b.y)))),
        };
      };
      stage.addEventListener('pointerdown', (e) => {
        if (!frame.classList.contains('drawing')) return;
        e.preventDefault();
        start = at(e);
        stage.setPointerCapture(e.pointerId);
        place(draft, { ...start, width: 0, height: 0 }, size);
        stage.append(draft);
      });
      stage.addEventListener('pointermove', (e) => {
        if (start) place(draft, boxOf(start, at(e)), size);
      });
      stage.addEventListener('pointerup', (e) => {
        if (!start) return;
        const box = boxOf(start, at(e));
        start = undefined;
        draft.remove();
        frame.classList.remove('drawing');
        msg.clear();
        form(undefined, box);
      });
    }
    await draw();
  })().catch((err: unknown) => msg.error(errorText(err)));
  return { frame, panel };
}
