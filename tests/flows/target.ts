import type { Accounts } from '../harness/accounts.ts';

/** A message as the flows see it, whichever way it was delivered (SMTP in distributed mode, DATA_DIR/mail embedded). */
export interface Mail {
  subject: string;
  text: string;
}

/** Another gateway of the same mode, with other settings (embedded: a fresh app; distributed: a second process). */
export interface ExtraGateway {
  baseUrl: string;
  /** The link of the latest mail to `to` whose subject matches, as this gateway wrote it. */
  mailLink(to: string, subject: RegExp): Promise<string>;
  stop(): Promise<void>;
}

/**
 * What the account, organization and API-key flows need from a running Formgate, so that the same suites run
 * through the gateway in embedded mode (one process) and in distributed mode (separate processes, Kafka, FerretDB).
 */
export interface FlowTarget {
  mode: 'embedded' | 'distributed';
  baseUrl: string;
  accounts: Accounts;
  /** Mails received for `to`, oldest first. */
  mails(to: string): Promise<Mail[]>;
  /** The link of the latest mail to `to` whose subject matches, rewritten to reach this test's gateway. */
  mailLink(to: string, subject: RegExp): Promise<string>;
  /** Resolves once every ingest instance answers for the form's key. */
  waitForForm(key: string): Promise<void>;
  /** The `key` column of an API key as the auth database stores it. */
  storedApiKey(id: string): Promise<string>;
  /** How long asynchronous effects (events through the log) may take here. */
  patienceMs: number;
  startGateway(env: Record<string, string>): Promise<ExtraGateway>;
}

/** The flows are registered at collection time; the target exists only once `beforeAll` has started it. */
export type TargetRef = () => FlowTarget;
