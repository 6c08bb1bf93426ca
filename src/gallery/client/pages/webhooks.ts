/**
 * The caller's webhooks (docs/decisions.md §8): list, create, edit, delete, re-activate, the deliveries of
 * each, and a live preview of the template rendered on sample data as it is typed.
 */
import { api, errorText, ok, type Schemas } from '../api.ts';
import { formatDate, h, messageBox, replace } from '../dom.ts';

type Webhook = Schemas['Webhook'];
type EventKind = Webhook['events'][number];
const EVENTS: EventKind[] = ['create', 'update', 'delete'];

export async function webhooksSection(): Promise<HTMLElement> {
  const msg = messageBox();
  const list = h('div', { class: 'webhooks' });
  const formSlot = h('div');
  const add = h('button', { type: 'button', id: 'add-webhook' }, 'Add a webhook');
  const section = h(
    'section',
    { 'aria-labelledby': 'webhooks-h' },
    h('h2', { id: 'webhooks-h', tabindex: -1 }, 'Webhooks'),
    msg.el,
    list,
    h('p', {}, add),
    formSlot,
  );

  const refresh = async () => {
    try {
      const hooks = await ok(api.GET('/api/webhook'));
      replace(
        list,
        hooks.length ? h('ul', { class: 'cards' }, hooks.map(card)) : h('p', { class: 'muted' }, 'No webhooks yet.'),
      );
    } catch (err) {
      msg.error(errorText(err));
    }
  };
  const openForm = (hook?: Webhook) => {
    replace(
      formSlot,
      webhookForm(
        hook,
        async (saved) => {
          formSlot.replaceChildren();
          msg.info(`Saved webhook ${saved.label ?? saved.url}.`);
          await refresh();
          document.getElementById('webhooks-h')?.focus();
        },
        () => {
          formSlot.replaceChildren();
          add.focus();
        },
      ),
    );
    formSlot.querySelector<HTMLInputElement>('input')?.focus();
  };
  add.addEventListener('click', () => openForm());

  function card(hook: Webhook): HTMLElement {
    const deliveries = h('div', { class: 'deliveries' });
    // Short visible words; the accessible name says which webhook.
    const act = (text: string, label: string, run: () => Promise<unknown>, danger = false) => {
      const b = h('button', { type: 'button', class: danger ? 'danger' : 'secondary', 'aria-label': label }, text);
      b.addEventListener('click', async () => {
        try {
          await run();
        } catch (err) {
          msg.error(errorText(err));
        }
      });
      return b;
    };
    const name = hook.label || hook.url;
    return h(
      'li',
      { class: 'card' },
      h('h3', {}, name),
      h('p', {}, h('code', {}, hook.url)),
      h(
        'p',
        {},
        `Events: ${hook.events.join(', ')} · `,
        h('strong', { class: hook.state === 'active' ? 'ok' : 'bad' }, hook.state),
        ` · ${hook.failureCount} failures in a row`,
      ),
      h(
        'p',
        { class: 'muted' },
        hook.lastDeliveryAt
          ? `Last delivery ${formatDate(hook.lastDeliveryAt)}, status ${hook.lastResponseStatus ?? 'none'}`
          : 'Nothing delivered yet',
      ),
      h(
        'p',
        { class: 'actions' },
        act('Edit', `Edit ${name}`, async () => openForm(hook)),
        hook.state === 'suspended'
          ? act('Re-activate', `Re-activate ${name}`, async () => {
              await ok(api.POST('/api/webhook/{id}/reactivate', { params: { path: { id: hook.id } } }));
              msg.info(`${name} is active again.`);
              await refresh();
            })
          : null,
        act('Deliveries', `Deliveries of ${name}`, async () => {
          const attempts = await ok(api.GET('/api/webhook/{id}/deliveries', { params: { path: { id: hook.id } } }));
          replace(deliveries, deliveriesTable(attempts));
        }),
        act(
          'Delete',
          `Delete ${name}`,
          async () => {
            await ok(api.DELETE('/api/webhook/{id}', { params: { path: { id: hook.id } } }));
            msg.info(`Deleted ${name}.`);
            await refresh();
          },
          true,
        ),
      ),
      deliveries,
    );
  }

  await refresh();
  return section;
}

function deliveriesTable(attempts: Schemas['DeliveryAttempt'][]): HTMLElement {
  if (!attempts.length) return h('p', { class: 'muted' }, 'No delivery attempts yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', {}, 'Latest delivery attempts, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Time', 'Event', 'Post', 'Outcome', 'Status', 'Error', 'ms'].map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        attempts.map((a) =>
          h(
            'tr',
            {},
            h('td', {}, formatDate(a.attemptedAt)),
            h('td', {}, a.event),
            h(
              'td',
              {},
              a.event === 'delete' ? a.postId.slice(0, 8) : h('a', { href: `/post/${a.postId}` }, a.postId.slice(0, 8)),
            ),
            h('td', {}, a.outcome),
            h('td', {}, a.responseStatus ?? '—'),
            h('td', {}, a.error ?? ''),
            h('td', {}, a.durationMs),
          ),
        ),
      ),
    ),
  );
}

function webhookForm(hook: Webhook | undefined, saved: (hook: Webhook) => void, cancel: () => void): HTMLElement {
  const msg = messageBox();
  const label = h('input', { id: 'wh-label', name: 'label', maxlength: 200, value: hook?.label ?? '' });
  const url = h('input', {
    id: 'wh-url',
    name: 'url',
    type: 'url',
    required: true,
    value: hook?.url ?? '',
    placeholder: 'https://example.com/hook',
  });
  const secret = h('input', {
    id: 'wh-secret',
    name: 'secret',
    type: 'password',
    autocomplete: 'new-password',
    required: !hook,
    maxlength: 256,
  });
  const boxes = EVENTS.map((e) =>
    h('input', {
      type: 'checkbox',
      id: `wh-ev-${e}`,
      name: 'events',
      value: e,
      checked: hook ? hook.events.includes(e) : true,
    }),
  );
  const template = h('textarea', {
    id: 'wh-template',
    name: 'template',
    rows: 6,
    spellcheck: 'false',
    placeholder: 'empty: the default body',
  });
  template.value = hook?.template ?? '';
  const previewEvent = h(
    'select',
    { id: 'wh-preview-event' },
    EVENTS.map((e) => h('option', { value: e }, e)),
  );
  const preview = h('pre', { id: 'wh-preview', class: 'preview-body', 'aria-live': 'polite' });
  let timer: number | undefined;
  const render = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(async () => {
      try {
        const out = await ok(
          api.POST('/api/webhook/preview', {
            body: { template: template.value.trim() ? template.value : null, event: previewEvent.value as EventKind },
          }),
        );
        preview.classList.remove('error');
        preview.textContent = out.body;
      } catch (err) {
        preview.classList.add('error');
        preview.textContent = errorText(err);
      }
    }, 250);
  };
  template.addEventListener('input', render);
  previewEvent.addEventListener('change', render);
  render();

  const form = h(
    'form',
    { class: 'stack webhook-form', 'aria-labelledby': 'wh-h' },
    h('h3', { id: 'wh-h' }, hook ? `Edit webhook ${hook.label || hook.url}` : 'New webhook'),
    h('label', { for: 'wh-label' }, 'Label'),
    label,
    h('label', { for: 'wh-url' }, 'URL'),
    url,
    h(
      'label',
      { for: 'wh-secret' },
      'Secret ',
      h('small', {}, hook ? '(leave empty to keep the current one)' : '(signs every delivery)'),
    ),
    secret,
    h(
      'fieldset',
      {},
      h('legend', {}, 'Events'),
      boxes.map((b) => h('label', { class: 'check' }, b, ` ${b.value}`)),
    ),
    h('label', { for: 'wh-template' }, 'Template ', h('small', {}, '(Go text/template; must render JSON)')),
    template,
    h('div', { class: 'preview-head' }, h('label', { for: 'wh-preview-event' }, 'Preview for the event'), previewEvent),
    preview,
    h(
      'p',
      { class: 'actions' },
      h('button', { type: 'submit' }, hook ? 'Save webhook' : 'Create webhook'),
      ' ',
      h('button', { type: 'button', id: 'wh-cancel', class: 'secondary', onclick: cancel }, 'Cancel'),
    ),
    msg.el,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const events = boxes.filter((b) => b.checked).map((b) => b.value as EventKind);
    if (!events.length) {
      msg.error('Choose at least one event.');
      return;
    }
    const fields = {
      url: url.value,
      events,
      label: label.value || null,
      template: template.value.trim() ? template.value : null,
    };
    try {
      const result = hook
        ? await ok(
            api.PATCH('/api/webhook/{id}', {
              params: { path: { id: hook.id } },
              body: { ...fields, ...(secret.value ? { secret: secret.value } : {}) },
            }),
          )
        : await ok(api.POST('/api/webhook', { body: { ...fields, secret: secret.value } }));
      saved(result);
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return form;
}
