/**
 * A list of the account's things (app keys, passkeys), each with a button that removes it and then reloads the list.
 */
import { errorText } from './api.ts';
import { h, messageBox, replace, type Child } from './dom.ts';

export function removableRows<T extends { name: string }>(
  list: HTMLElement,
  items: T[],
  opts: {
    verb: string;
    empty: string;
    msg: ReturnType<typeof messageBox>;
    describe(item: T): Child[];
    remove(item: T): Promise<unknown>;
    done(item: T): string;
    reload(): Promise<void>;
  },
): void {
  if (!items.length) {
    replace(list, h('li', { class: 'muted' }, opts.empty));
    return;
  }
  replace(
    list,
    items.map((item) => {
      const button = h('button', { type: 'button', class: 'danger' }, `${opts.verb} ${item.name}`);
      button.addEventListener('click', async () => {
        try {
          await opts.remove(item);
          opts.msg.info(opts.done(item));
          await opts.reload();
        } catch (err) {
          opts.msg.error(errorText(err));
        }
      });
      return h('li', {}, h('strong', {}, item.name), ...opts.describe(item), ' ', button);
    }),
  );
}
