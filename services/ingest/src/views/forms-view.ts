import type { BusMessage } from '@formgate/bus';
import { decodeEvent, type Form, Topics } from '@formgate/contracts';
import { createVersionWaits } from './version-waits.ts';

type Entry = { form: Form; deleted: false } | { deleted: true; version: number };

/**
 * Ingest's in-memory view of `forms.form`, by public key. Built by replaying the compacted topic at start and kept
 * current by following it; a snapshot older than the one held is ignored. Never a database call per request.
 */
export function createFormsView() {
  const byKey = new Map<string, Entry>();
  const versionOf = (e: Entry | undefined) => (e ? (e.deleted ? e.version : e.form.version) : 0);
  /** The version held of each form, by id: what a settle waits on (`until`). */
  const versions = new Map<string, number>();
  const waits = createVersionWaits();
  const reached = (id: string, version: number) => {
    if ((versions.get(id) ?? 0) >= version) return;
    versions.set(id, version);
    waits.reached(id, version);
  };

  return {
    apply(message: BusMessage) {
      const event = decodeEvent(Topics.formsForm, message.value);
      if (event.type === 'form.upserted') {
        const form = event.data;
        reached(form.id, form.version);
        if (versionOf(byKey.get(form.key)) >= form.version) return;
        byKey.set(form.key, { form, deleted: false });
      } else {
        const { formId, key, version } = event.data;
        reached(formId, version);
        if (versionOf(byKey.get(key)) > version) return;
        byKey.set(key, { deleted: true, version });
      }
    },
    /** `undefined`: never existed; `'deleted'`: existed and was deleted. */
    lookup(key: string): Form | 'deleted' | undefined {
      const entry = byKey.get(key);
      if (!entry) return undefined;
      return entry.deleted ? 'deleted' : entry.form;
    },
    /** Resolves true once the view holds `version` of form `id` or a later one; false after `timeoutMs`. */
    until: (id: string, version: number, timeoutMs: number) =>
      waits.until(id, version, versions.get(id) ?? 0, timeoutMs),
    get size() {
      return byKey.size;
    },
  };
}

export type FormsView = ReturnType<typeof createFormsView>;
