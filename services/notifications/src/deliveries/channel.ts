import type { DeliveryChannel as DeliveryChannelKind } from '@formgate/contracts';
import type { Delivery, FormView, StoredSubmission, WebhookEndpoint } from '../store/index.ts';
import type { RetrySchedule } from './retry-schedule.ts';

export type { DeliveryChannelKind };

/**
 * What the caller of an attempt has read already (the received handler: its batch's form view, the submission's
 * copy, the form's endpoints), so that a first attempt does not read them again. What is missing is read.
 */
export interface AttemptContext {
  form?: FormView;
  submission?: StoredSubmission;
  endpoints?: readonly WebhookEndpoint[];
}

/** What one send ended with: a failed send is an outcome, never an exception. */
export interface SendResult {
  ok: boolean;
  /** A failure that a later attempt may not repeat (a timeout, a 5xx, a 4xx SMTP reply). */
  retryable: boolean;
  response: { code: string; text: string };
  messageId: string | null;
}

/** A failed send that no later attempt can change (the target or its data are gone, the message is refused). */
export const permanentFailure = (code: string, text: string): SendResult => ({
  ok: false,
  retryable: false,
  response: { code, text },
  messageId: null,
});

/** A send admitted by `admit`: settled once its outcome is known (`succeeded`: it was delivered). */
export interface Admission {
  settle(succeeded: boolean): void;
}

/**
 * How deliveries of one kind are made. The engine (`attempt.ts`, `first-attempts/`) never asks which channel it
 * holds: every difference between email and webhooks is a member here.
 */
export interface DeliveryChannel {
  readonly kind: DeliveryChannelKind;
  readonly retrySchedule: RetrySchedule;
  /** The client span's name around a send (ADR 51). */
  readonly spanName: string;
  /** Sends one attempt. Must not throw for a failed send: that is a `SendResult`. */
  send(delivery: Delivery, ctx: AttemptContext): Promise<SendResult>;
  /**
   * Whether the delivery may be sent now (the organization's emails quota): an admission, or null to defer it. A
   * channel without it sends everything.
   */
  admit?(delivery: Delivery, now: Date): Admission | null;
  /** After a delivery's final outcome was recorded (an endpoint's health); its failure never redoes the send. */
  afterFinal?(delivery: Delivery): Promise<void>;
  /** How the outcome events name the target: never a credential (a chat webhook's URL is one). */
  eventTarget(delivery: Delivery): string;
  /** The target as members who do not manage it read it in the log. */
  shownTarget(delivery: Delivery): string;
  /**
   * A resend of `original` as it would be planned now (the endpoint's current URL), or throws the `AppError` that
   * refuses it (an address no longer verified, an endpoint deleted or disabled).
   */
  resendOf(original: Delivery): Promise<Pick<Delivery, 'purpose' | 'target' | 'targetId' | 'webhookEvent'>>;
}

/** Every channel kind, cheapest first: each has a consumer group of its own (ADR 54). */
export const ALL_CHANNEL_KINDS: readonly DeliveryChannelKind[] = ['webhook', 'email'];

/** The channels of a service, in the order first attempts are started (the cheapest first). */
export type DeliveryChannels = readonly DeliveryChannel[];

/** A delivery's channel; a kind the service does not run fails its attempt (`UNSUPPORTED_CHANNEL`). */
export function channelOf(channels: DeliveryChannels, delivery: Pick<Delivery, 'channel'>): DeliveryChannel {
  return channels.find((c) => c.kind === delivery.channel) ?? unsupported(delivery.channel);
}

const unsupported = (kind: DeliveryChannelKind): DeliveryChannel => ({
  kind,
  retrySchedule: { delaysMs: [], jitter: 0 },
  spanName: 'send',
  send: async () => ({
    ok: false,
    retryable: false,
    response: { code: 'UNSUPPORTED_CHANNEL', text: kind },
    messageId: null,
  }),
  eventTarget: (d) => d.targetId ?? '',
  shownTarget: () => '',
  resendOf: async () => {
    throw new Error(`no ${kind} channel`);
  },
});

/** First attempts in the order they are started: by the channels' order (webhooks, one POST, before emails). */
export function cheapFirst(channels: DeliveryChannels, deliveries: Delivery[]): Delivery[] {
  const rank = (d: Delivery) => channels.findIndex((c) => c.kind === d.channel);
  return [...deliveries].sort((a, b) => rank(a) - rank(b));
}
