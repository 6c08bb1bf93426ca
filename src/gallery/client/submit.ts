/**
 * What a form of the gallery does when sent: it says it is busy in its message box, runs the request,
 * and on a failure puts the failure's words there instead (then `failed`, e.g. to select a field to
 * type again). The page stays; what success shows is `run`'s.
 */
import { errorText } from './api.ts';
import type { messageBox } from './dom.ts';

export function onSubmit(
  form: HTMLFormElement,
  msg: ReturnType<typeof messageBox>,
  busy: string,
  run: () => Promise<void>,
  failed?: () => void,
): void {
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.info(busy);
    try {
      await run();
    } catch (err) {
      msg.error(errorText(err));
      failed?.();
    }
  });
}
