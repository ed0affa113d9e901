/**
 * Read your own settings (docs/architecture.md, "Read your own settings"): a service answers a change of settings
 * that ingest reads from a view with 2xx only once the change is in the log, and names it in this header; the
 * gateway strips the header and answers the client only once every ingest instance's view has that version. A
 * submission accepted after the answer is then accepted under it, and carries the version (`formVersion`) for the
 * consumers, which wait for it.
 */
export const SETTLE_HEADER = 'x-formgate-settle';

/** Ingest's views a change can name: a form (`forms.form`), an organization's settings (`orgs.settings`). */
export type SettleView = 'form' | 'org-settings';

export interface Settle {
  view: SettleView;
  /** The form's or the organization's id. */
  id: string;
  /** The version the view must have reached (or passed). */
  version: number;
}

export const formatSettle = ({ view, id, version }: Settle) => `${view}:${id}@${version}`;

const SETTLE = /^(form|org-settings):([\w-]{1,100})@([1-9]\d{0,15})$/;

/** The header's value, or null when it is not one. */
export function parseSettle(value: string): Settle | null {
  const m = SETTLE.exec(value);
  return m ? { view: m[1] as SettleView, id: m[2] as string, version: Number(m[3]) } : null;
}
