/** A tiny element builder: h('a', { href: '/' }, 'text', child). Text is always set as text, never as HTML. */
type Attrs = Record<string, string | number | boolean | undefined | null | EventListener>;
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

export const main = () => document.getElementById('main') as HTMLElement;

/** Sets the page's heading and title, and moves focus to the content (keyboard and screen readers start there). */
export function pageHeading(text: string): HTMLHeadingElement {
  document.title = `${text} · imgpost`;
  return h('h1', {}, text);
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A control with its label before it, tied by the control's id: how every form lays out a field. */
export function field(control: HTMLElement, ...label: Child[]): Child[] {
  return [h('label', { for: control.id }, ...label), control];
}

/** A live region for outcomes and errors: role=alert for errors, status otherwise. */
export function messageBox(): {
  el: HTMLElement;
  error(text: string | Node): void;
  info(text: string | Node): void;
  clear(): void;
} {
  const el = h('div', { class: 'message', 'aria-live': 'polite' });
  return {
    el,
    error(text) {
      replace(el, h('p', { class: 'error', role: 'alert' }, text));
    },
    info(text) {
      replace(el, h('p', { class: 'info', role: 'status' }, text));
    },
    clear() {
      el.replaceChildren();
    },
  };
}
