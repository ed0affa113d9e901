import { type KeyboardEvent, useEffect, useState } from 'react';
import { NavLink, useLocation, useNavigate, useParams } from 'react-router';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Button, cx } from '../../components/ui.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { useBulkSubmissions } from './submissions.mutations.ts';
import type { BulkSubmissionsRequest, Submission } from './submissions.queries.ts';

export const NO_SUBMISSIONS = 'No submissions, follow the examples to setup your form.';

/** What shows in place of the fields of a submission that kept only its metadata (a no-store form's, issue 31). */
export const CONTENT_NOT_STORED = 'Content not stored — only its time, spam verdict and delivery outcomes were kept.';

/** A one-line summary of a submission: its first values, as text ("Content not stored" once only its metadata is). */
export function summaryOf(s: Submission): string {
  if (s.contentDropped) return 'Content not stored';
  const text = s.fields
    .map((f) => f.value.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .slice(0, 2)
    .join(' · ');
  if (text) return text.length > 120 ? `${text.slice(0, 119)}…` : text;
  return s.files.length > 0 ? `${s.files.length} file(s)` : '(empty)';
}

/** Whether the malware scan quarantined a file of it (issue 33): shown as a badge on its row and its page. */
export const hasQuarantinedFile = (s: Submission) =>
  s.files.some((f) => f.scan?.status === 'infected' || f.scan?.status === 'failed');

/** Up and down arrows move between the rows' links. */
function moveBetweenRows(e: KeyboardEvent<HTMLUListElement>) {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const links = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>('a[data-row-link]')];
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  if (at < 0) return;
  e.preventDefault();
  links[Math.min(links.length - 1, Math.max(0, at + (e.key === 'ArrowDown' ? 1 : -1)))]?.focus();
}

/** The listed submissions: selection and bulk actions for those who manage the form, arrow keys between rows. */
export function SubmissionList(props: {
  formId: string;
  items: Submission[];
  canManage: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  filtered: boolean;
}) {
  const { formId, items } = props;
  const { search } = useLocation();
  const { submissionId } = useParams();
  const navigate = useNavigate();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // Forget what is no longer listed (deleted, or filtered away).
  useEffect(() => {
    setSelected((prev) => {
      const listed = new Set(items.map((i) => i.id));
      const next = new Set([...prev].filter((id) => listed.has(id)));
      return next.size === prev.size ? prev : next;
    });
  }, [items]);

  const bulk = useBulkSubmissions(formId, {
    onSuccess: ({ action, ids }) => {
      setSelected(new Set());
      if (action === 'delete' && submissionId && ids.includes(submissionId)) navigate({ pathname: '.', search });
    },
  });
  const act = (action: BulkSubmissionsRequest['action']) => bulk.mutate({ action, ids: [...selected] });

  const toggle = (id: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="flex flex-col gap-2">
      {props.canManage && items.length > 0 ? (
        <BulkActions items={items} selected={selected} onSelect={setSelected} pending={bulk.isPending} onAct={act} />
      ) : null}
      {items.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {props.filtered ? 'No submissions match these filters.' : NO_SUBMISSIONS}
        </p>
      ) : null}
      <ul
        aria-label="Submissions, newest first"
        onKeyDown={moveBetweenRows}
        className="flex max-h-96 flex-col divide-y divide-zinc-200 overflow-y-auto rounded-md border border-zinc-200 lg:max-h-[70vh] dark:divide-zinc-800 dark:border-zinc-800"
      >
        {items.map((s) => (
          <SubmissionRow
            key={s.id}
            submission={s}
            selected={props.canManage ? selected.has(s.id) : undefined}
            onToggle={() => toggle(s.id)}
          />
        ))}
      </ul>
      {props.hasMore ? (
        <Button variant="secondary" onClick={props.onLoadMore} disabled={props.loadingMore}>
          {props.loadingMore ? 'Loading…' : 'Load more'}
        </Button>
      ) : null}
    </div>
  );
}

/** "Select all" (or how many are selected) and, for a selection, mark spam, not spam, or delete (confirmed). */
function BulkActions(props: {
  items: Submission[];
  selected: Set<string>;
  onSelect: (selected: Set<string>) => void;
  pending: boolean;
  onAct: (action: BulkSubmissionsRequest['action']) => void;
}) {
  const allSelected = props.items.length > 0 && props.items.every((i) => props.selected.has(i.id));
  return (
    <div className="flex flex-wrap items-center gap-2 rounded-md bg-zinc-50 px-2 py-1.5 text-sm dark:bg-zinc-900">
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          checked={allSelected}
          onChange={() => props.onSelect(allSelected ? new Set() : new Set(props.items.map((i) => i.id)))}
        />
        {props.selected.size > 0 ? `${props.selected.size} selected` : 'Select all'}
      </label>
      {props.selected.size > 0 ? (
        <fieldset aria-label="With the selected submissions" className="ml-auto flex flex-wrap gap-1">
          <Button variant="ghost" className="px-2 py-1" disabled={props.pending} onClick={() => props.onAct('spam')}>
            Mark spam
          </Button>
          <Button
            variant="ghost"
            className="px-2 py-1"
            disabled={props.pending}
            onClick={() => props.onAct('not-spam')}
          >
            Not spam
          </Button>
          <ConfirmDialog
            trigger={
              <Button variant="ghost" className="px-2 py-1 text-red-700 dark:text-red-400" disabled={props.pending}>
                Delete
              </Button>
            }
            title={`Delete ${props.selected.size} ${props.selected.size === 1 ? 'submission' : 'submissions'}?`}
            description="Their fields and files are deleted for good."
            confirmLabel="Delete"
            onConfirm={() => props.onAct('delete')}
          />
        </fieldset>
      ) : null}
    </div>
  );
}

/** A row: its checkbox (`selected` undefined: none), and a link to it with its summary, date and badges. */
function SubmissionRow(props: { submission: Submission; selected: boolean | undefined; onToggle: () => void }) {
  const s = props.submission;
  const { search } = useLocation();
  return (
    <li className="flex items-start gap-2 px-2 py-2">
      {props.selected !== undefined ? (
        <input
          type="checkbox"
          className="mt-1"
          aria-label={`Select the submission of ${formatDateTime(s.createdAt)}`}
          checked={props.selected}
          onChange={props.onToggle}
        />
      ) : null}
      <NavLink
        data-row-link
        to={{ pathname: encodeURIComponent(s.id), search }}
        className={({ isActive }) =>
          cx(
            'flex min-w-0 flex-1 flex-col gap-0.5 rounded px-1 py-0.5',
            isActive ? 'bg-brand-50 dark:bg-zinc-800' : 'hover:bg-zinc-50 dark:hover:bg-zinc-900',
          )
        }
      >
        <span className={cx('truncate text-sm', s.contentDropped && 'text-zinc-600 italic dark:text-zinc-400')}>
          {summaryOf(s)}
        </span>
        <span className="flex flex-wrap items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
          <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
          {s.spam ? <Badge tone="spam">Spam</Badge> : null}
          {s.held ? <Badge tone="held">Held</Badge> : null}
          {hasQuarantinedFile(s) ? <Badge tone="danger">Quarantined file</Badge> : null}
        </span>
      </NavLink>
    </li>
  );
}

const BADGE_TONES = {
  spam: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
  held: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200',
  danger: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200',
};

export function Badge({ tone, children }: { tone: keyof typeof BADGE_TONES; children: string }) {
  return <span className={cx('rounded px-1.5 py-0.5 text-xs font-medium', BADGE_TONES[tone])}>{children}</span>;
}
