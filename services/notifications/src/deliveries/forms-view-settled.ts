import type { Settle } from '@formgate/contracts';
import type { NotificationViews } from '../store/index.ts';
import { DELIVERY_TUNING } from './tuning.ts';

/**
 * Read your own settings (`SETTLE_HEADER`): resolves true once the forms view holds the version of the form a change
 * was answered with (or the form is deleted), false when it does not within `timeoutMs`. The view lives in the
 * store, shared by every instance, and the instance asked may not be the one consuming `forms.form`, so this reads
 * the store until it has it: a change of settings is rare. An organization's settings are not in this view: settled.
 */
export function createFormsViewSettled(store: Pick<NotificationViews, 'getFormUnscoped'>) {
  return async ({ view, id, version }: Settle, timeoutMs = DELIVERY_TUNING.formsViewSettleMs): Promise<boolean> => {
    if (view !== 'form') return true;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const form = await store.getFormUnscoped(id);
      if (form === 'deleted' || (form && form.version >= version)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, DELIVERY_TUNING.formsViewPollMs));
    }
  };
}

export type FormsViewSettled = ReturnType<typeof createFormsViewSettled>;
