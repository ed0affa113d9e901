import type { Clock, Ids } from '@formgate/kit';
import type { FormRepository } from '../store/form-repository.ts';

/** What the use cases that write a form need. */
export interface FormWriteDeps {
  forms: FormRepository;
  clock: Clock;
  ids: Ids;
  /**
   * Called after a form version is stored: the outbox relay publishes it now. Resolves true once the change is in
   * the log (a relay run that started after the write drained), false when the log did not take it (it goes out on
   * a later run).
   */
  onFormChanged: () => Promise<boolean>;
  /** The most forms the organization's plan allows (`null`: no limit); absent: no limit. */
  formsLimit?: (orgId: string) => number | null;
  /** The longest retention the organization's plan allows, in days (`null`: none); absent: none. */
  retentionLimit?: (orgId: string) => number | null;
}
