import { useQuery } from '@tanstack/react-query';
import { formatDateTime } from '../../components/panel.tsx';
import { Button, Notice } from '../../components/ui.tsx';
import { saveFile } from '../../lib/save-file.ts';
import { formsListQuery } from '../forms/forms.queries.ts';
import { erasureQuery, receiptFile, type SignedErasureReceipt } from './privacy.queries.ts';

export const submissionsCount = (count: number) => `${count} ${count === 1 ? 'submission' : 'submissions'}`;

/** The names of the organization's forms by id (an id stays as it is when the form is not listed). */
export function useFormNames() {
  const forms = useQuery(formsListQuery());
  const names = new Map((forms.data ?? []).map((f) => [f.id, f.name]));
  return (formId: string) => names.get(formId) ?? formId;
}

/**
 * A signed erasure receipt: what was erased (count, forms, submission ids, time), the key that signed it, and
 * "Download receipt" (the whole signed receipt as JSON, which `formgate erase verify` checks).
 */
export function ErasureReceiptView({ signed, label }: { signed: SignedErasureReceipt; label: string }) {
  const { receipt, signature } = signed;
  const formName = useFormNames();
  const download = () => {
    const file = receiptFile(signed);
    saveFile(file.blob, file.name);
  };
  return (
    <section
      aria-label={label}
      className="flex min-w-0 flex-col gap-3 rounded-md border border-zinc-200 bg-zinc-50 p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium">Erased at</dt>
        <dd>{formatDateTime(receipt.erasedAt)}</dd>
        <dt className="font-medium">Submissions erased</dt>
        <dd>{receipt.count}</dd>
        <dt className="font-medium">Forms</dt>
        <dd>{receipt.forms.length === 0 ? 'None' : receipt.forms.map(formName).join(', ')}</dd>
        <dt className="font-medium">Submission ids</dt>
        <dd>
          {receipt.submissions.length === 0 ? (
            'None'
          ) : (
            <ul aria-label="Erased submissions" className="flex max-h-40 flex-col overflow-y-auto font-mono text-xs">
              {receipt.submissions.map((s) => (
                <li key={s.id} className="break-all">
                  {s.id}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt className="font-medium">Receipt</dt>
        <dd className="font-mono text-xs break-all">{receipt.id}</dd>
        <dt className="font-medium">Signed with key</dt>
        <dd className="font-mono text-xs break-all">
          {signature.keyId} ({signature.alg})
        </dd>
      </dl>
      <p className="text-zinc-600 dark:text-zinc-400">
        The receipt names the address only by a keyed hash. Anyone can check its signature against this instance's
        public keys, for example with <code>formgate erase verify</code>.
      </p>
      <div>
        <Button variant="secondary" onClick={download}>
          Download receipt
        </Button>
      </div>
    </section>
  );
}

/** A past erasure's receipt, fetched when opened. */
export function StoredErasureReceipt({ erasureId }: { erasureId: string }) {
  const signed = useQuery(erasureQuery(erasureId));
  if (signed.isPending) return <p role="status">Loading receipt…</p>;
  if (signed.isError) return <Notice tone="error">The receipt could not be loaded.</Notice>;
  return <ErasureReceiptView signed={signed.data} label={`Receipt of erasure ${erasureId}`} />;
}
