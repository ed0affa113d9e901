import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { NotificationViews } from '../store/index.ts';

/** `forms.form` → the forms view (highest version wins; a deleted form stays deleted). */
export function createFormsViewHandler(deps: { views: NotificationViews }) {
  return async (batch: BusMessage[]) => {
    for (const m of batch) {
      const event = decodeEvent(Topics.formsForm, m.value);
      if (event.type === 'form.deleted') {
        await deps.views.deleteForm(event.data.formId, event.data.version);
        continue;
      }
      const { id, orgId, name, slug, settings, version } = event.data;
      const { notifications, storeContent } = settings;
      await deps.views.applyForm({ id, orgId, name, slug, notifications, storeContent, version });
    }
  };
}
