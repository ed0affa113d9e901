import type { ReactNode } from 'react';
import { Notice, SubmitButton } from '../../components/ui.tsx';
import { describeError } from '../../lib/api.ts';
import { usePostToForm } from './site.mutations.ts';

/**
 * A form that really posts to one of this instance's own forms (`/f/{key}`), as JSON-answering `fetch`: what a
 * customer's site would do. `fields` are the inputs; the honeypot `_gotcha` stays hidden from people.
 */
export function PublicForm(props: { endpoint: string; submitLabel: string; success: ReactNode; children: ReactNode }) {
  const send = usePostToForm(props.endpoint);
  if (send.isSuccess) return <Notice>{props.success}</Notice>;
  return (
    <form
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault();
        send.mutate(event.currentTarget);
      }}
    >
      {props.children}
      <input type="text" name="_gotcha" tabIndex={-1} autoComplete="off" aria-hidden="true" className="hidden" />
      {send.error ? <Notice tone="error">{describeError(send.error)}</Notice> : null}
      <SubmitButton pending={send.isPending} pendingLabel="Sending…">
        {props.submitLabel}
      </SubmitButton>
    </form>
  );
}
