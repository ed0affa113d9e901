import { useCallback, useMemo, useRef, useState } from 'react';
import { FormgateError, type SubmissionIssue } from './errors.ts';
import { type SubmissionData, type SubmitOptions, type SubmitResult, submitTo } from './submit.ts';

/** A refused submission's problems: those of the whole form, and those naming a field, by field name. */
export interface FormErrors {
  form: SubmissionIssue[];
  fields: Record<string, SubmissionIssue[]>;
  /** The underlying error (status, code, `retryAfterSeconds`…). */
  error: FormgateError;
}

export interface FormState {
  submitting: boolean;
  succeeded: boolean;
  errors: FormErrors | null;
  /** The accepted submission's id and `next` URL once `succeeded`. */
  result: SubmitResult | null;
}

export interface UseFormOptions extends Omit<SubmitOptions, 'signal' | 'idempotencyKey'> {
  /** Where the gateway answers, e.g. `https://forms.example.com`. */
  baseUrl: string;
  /** Extra fields sent with every submission (a hidden source tag, say). */
  data?: Record<string, string>;
  fetch?: typeof fetch;
}

/** A form's submit event (React's or the DOM's), or the data itself. */
export type SubmitInput =
  | { preventDefault(): void; currentTarget: EventTarget | null; target?: EventTarget | null }
  | SubmissionData;

const INITIAL: FormState = { submitting: false, succeeded: false, errors: null, result: null };

const isEvent = (x: SubmitInput): x is Extract<SubmitInput, { preventDefault(): void }> =>
  typeof (x as { preventDefault?: unknown }).preventDefault === 'function';

function toErrors(err: unknown): FormErrors {
  const error =
    err instanceof FormgateError
      ? err
      : new FormgateError({ status: 0, code: 'NETWORK_ERROR', message: String(err), cause: err });
  const issues = error.issues.length ? error.issues : [{ code: error.code, message: error.message }];
  return { form: issues.filter((i) => i.field === undefined), fields: error.fieldErrors, error };
}

function withExtra(data: SubmissionData, extra: Record<string, string> | undefined): SubmissionData {
  if (!extra) return data;
  if (data instanceof FormData || data instanceof URLSearchParams) {
    for (const [k, v] of Object.entries(extra)) if (!data.has(k)) data.append(k, v);
    return data;
  }
  return { ...extra, ...data };
}

/**
 * `const [state, handleSubmit, reset] = useForm(formKey, { baseUrl })`, in the shape of `@formspree/react`:
 * `handleSubmit` takes a form's submit event (it prevents the page load and sends the form's fields, files
 * included) or a plain object. Each call is one submission with its own idempotency key, retried safely.
 */
export function useForm(
  formKey: string,
  options: UseFormOptions,
): [FormState, (input: SubmitInput) => Promise<SubmitResult | null>, () => void] {
  const [state, setState] = useState<FormState>(INITIAL);
  const latest = useRef(options);
  latest.current = options;
  const inFlight = useRef<AbortController | null>(null);

  const handleSubmit = useCallback(
    async (input: SubmitInput): Promise<SubmitResult | null> => {
      let data: SubmissionData;
      if (isEvent(input)) {
        input.preventDefault();
        // The DOM's `new FormData(form)` (typed loosely: the workspace typechecks without the DOM library).
        const FormDataOfForm = FormData as unknown as new (form?: unknown) => FormData;
        data = new FormDataOfForm(input.currentTarget ?? input.target ?? undefined);
      } else {
        data = input;
      }
      const { baseUrl, data: extra, fetch: f, ...submitOptions } = latest.current;
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      setState({ submitting: true, succeeded: false, errors: null, result: null });
      try {
        const result = await submitTo(
          { baseUrl, fetch: f ?? ((i, init) => globalThis.fetch(i, init)) },
          formKey,
          withExtra(data, extra),
          { ...submitOptions, signal: controller.signal },
        );
        if (!controller.signal.aborted) setState({ submitting: false, succeeded: true, errors: null, result });
        return result;
      } catch (err) {
        if (!controller.signal.aborted)
          setState({ submitting: false, succeeded: false, errors: toErrors(err), result: null });
        return null;
      }
    },
    [formKey],
  );

  const reset = useCallback(() => {
    inFlight.current?.abort();
    inFlight.current = null;
    setState(INITIAL);
  }, []);

  return useMemo(() => [state, handleSubmit, reset], [state, handleSubmit, reset]);
}
