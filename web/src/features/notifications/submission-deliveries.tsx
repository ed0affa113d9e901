import type { DeliveryDto } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Section } from '../../components/panel.tsx';
import { Button, cx, Notice, TextField } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useReplayDeliveries, useResendDelivery } from './deliveries.mutations.ts';
import { deliveriesQuery } from './deliveries.queries.ts';

const STATUS_LABEL: Record<DeliveryDto['status'], string> = {
  pending: 'Sending',
  retrying: 'Retrying',
  deferred: 'Deferred (emails quota)',
  succeeded: 'Delivered',
  failed: 'Failed',
};
const STATUS_TONE: Record<DeliveryDto['status'], string> = {
  pending: 'bg-zinc-100 text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200',
  retrying: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
  deferred: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200',
  succeeded: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200',
  failed: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200',
};

function describeChannel(d: DeliveryDto): string {
  if (d.channel === 'email') return d.purpose === 'autoresponse' ? 'Autoresponse email' : 'Notification email';
  if (d.purpose === 'slack') return 'Slack webhook';
  if (d.purpose === 'discord') return 'Discord webhook';
  if (d.purpose === 'rest-hook') return 'REST hook';
  return 'Webhook';
}

/**
 * The submission's delivery log: every email and webhook sent for it, each attempt's outcome, and "Resend" for
 * owners and admins. Addresses, URLs and responses are shown as text (a response body is the receiver's words).
 */
export function DeliveriesSection(props: {
  formId: string;
  submissionId: string;
  spam: boolean;
  held: boolean;
  canManage: boolean;
}) {
  const { formId, submissionId, canManage } = props;
  const deliveries = useQuery(deliveriesQuery(formId, submissionId));
  const resend = useResendDelivery(formId, submissionId);
  return (
    <Section title="Deliveries" level={3}>
      {deliveries.isPending ? <p className="text-sm">Loading deliveries…</p> : null}
      {deliveries.isError ? <Notice tone="error">{describeError(deliveries.error)}</Notice> : null}
      {deliveries.data?.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {props.spam
            ? 'Spam is never notified.'
            : props.held
              ? 'Held submissions are notified once released.'
              : 'Nobody was notified: choose who hears about new submissions in the form’s settings.'}
        </p>
      ) : null}
      {deliveries.data && deliveries.data.length > 0 ? (
        <ul aria-label="Deliveries" className="flex flex-col gap-2">
          {deliveries.data.map((d) => (
            <DeliveryItem
              key={d.id}
              delivery={d}
              canResend={canManage}
              resending={resend.isPending}
              onResend={() => resend.mutate(d.id)}
            />
          ))}
        </ul>
      ) : null}
      {canManage ? <ReplayFailedDeliveries formId={formId} /> : null}
    </Section>
  );
}

/** One delivery: its channel and target, status, "Resend" once it has ended, and its attempts. */
function DeliveryItem(props: { delivery: DeliveryDto; canResend: boolean; resending: boolean; onResend: () => void }) {
  const d = props.delivery;
  return (
    <li
      key={d.id}
      className="flex flex-col gap-1.5 rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="flex min-w-0 flex-col">
          <span className="font-medium">{describeChannel(d)}</span>
          <span className="break-all text-zinc-700 dark:text-zinc-300">{d.target}</span>
        </span>
        <span className="flex items-center gap-2">
          <span className={cx('rounded px-1.5 py-0.5 text-xs font-medium', STATUS_TONE[d.status])}>
            {STATUS_LABEL[d.status]}
          </span>
          {props.canResend && (d.status === 'succeeded' || d.status === 'failed') ? (
            <Button
              variant="secondary"
              className="px-2.5 py-1 text-xs"
              aria-label={`Resend the ${describeChannel(d).toLowerCase()} to ${d.target}`}
              disabled={props.resending}
              onClick={props.onResend}
            >
              Resend
            </Button>
          ) : null}
        </span>
      </div>
      <dl className="grid gap-x-3 gap-y-0.5 text-xs text-zinc-600 sm:grid-cols-[9rem_1fr] dark:text-zinc-400">
        <dt>Attempts</dt>
        <dd>{d.attempts}</dd>
        <dt>Last response</dt>
        <dd className="break-words">
          {d.lastResponse ? `${d.lastResponse.code} ${d.lastResponse.text}`.trim() : 'None yet'}
        </dd>
        {d.nextAttemptAt ? (
          <>
            <dt>Next attempt</dt>
            <dd>
              <time dateTime={d.nextAttemptAt}>{formatDateTime(d.nextAttemptAt)}</time>
            </dd>
          </>
        ) : null}
        <dt>Last change</dt>
        <dd>
          <time dateTime={d.updatedAt}>{formatDateTime(d.updatedAt)}</time>
        </dd>
        {d.resendOf ? (
          <>
            <dt>Resend of</dt>
            <dd className="break-all font-mono">{d.resendOf}</dd>
          </>
        ) : null}
        {d.messageId ? (
          <>
            <dt>Message ID</dt>
            <dd className="break-all font-mono">{d.messageId}</dd>
          </>
        ) : null}
      </dl>
    </li>
  );
}

const localInput = (date: Date) => {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
};

/** Owners and admins: re-attempts the form's failed deliveries of submissions received in a time range. */
export function ReplayFailedDeliveries({ formId }: { formId: string }) {
  const [from, setFrom] = useState(() => localInput(new Date(Date.now() - 24 * 3_600_000)));
  const [to, setTo] = useState(() => localInput(new Date()));
  const invalid = !from || !to || new Date(from) > new Date(to);
  const replay = useReplayDeliveries(formId);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid)
      replay.mutate({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), status: 'failed' });
  };
  return (
    <details className="rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-800">
      <summary className="cursor-pointer font-medium">Replay this form’s failed deliveries</summary>
      <form onSubmit={submit} className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end">
        <TextField label="Received from" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
        <TextField
          label="Received until"
          type="datetime-local"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          error={from && to && invalid ? 'Must not be before the start' : undefined}
        />
        <Button type="submit" variant="secondary" disabled={invalid || replay.isPending}>
          {replay.isPending ? 'Replaying…' : 'Replay failed'}
        </Button>
      </form>
    </details>
  );
}
