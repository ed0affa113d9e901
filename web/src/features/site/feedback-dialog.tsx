import { Dialog } from 'radix-ui';
import { useState } from 'react';
import { Button, SubmitButton, TextAreaField } from '../../components/ui.tsx';
import { useSendFeedback } from './site.mutations.ts';

/**
 * "Share Feedback": a dialog titled "Thanks for using the product!". Sending shows a submitting state; success
 * toasts "Feedback received, thank you!", closes and resets; failure alerts "error" and keeps the text.
 */
export function FeedbackDialog({ email, endpoint }: { email: string; endpoint: string }) {
  const [open, setOpen] = useState(false);
  const [feedback, setFeedback] = useState('');
  const send = useSendFeedback(endpoint, {
    onSuccess: () => {
      setFeedback('');
      setOpen(false);
    },
    onError: () => window.alert('error'),
  });
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setFeedback('');
      }}
    >
      <Dialog.Trigger asChild>
        <Button variant="secondary">Share Feedback</Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg border border-zinc-200 bg-white p-6 shadow-xl dark:border-zinc-800 dark:bg-zinc-900">
          <Dialog.Title className="text-lg font-semibold">Thanks for using the product!</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
            Tell us what works, what does not, and what you miss. We read everything.
          </Dialog.Description>
          <form
            className="mt-4 flex flex-col gap-3"
            onSubmit={(event) => {
              event.preventDefault();
              send.mutate({ email, feedback });
            }}
          >
            <TextAreaField
              label="Your feedback"
              name="feedback"
              required
              rows={5}
              maxLength={5000}
              value={feedback}
              onChange={(event) => setFeedback(event.target.value)}
            />
            <div className="flex justify-end gap-2">
              <Dialog.Close asChild>
                <Button variant="ghost">Cancel</Button>
              </Dialog.Close>
              <SubmitButton pending={send.isPending} pendingLabel="Sending…" aria-busy={send.isPending}>
                Send feedback
              </SubmitButton>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
