import { randomUUID } from 'node:crypto';
import type { BusMessage, EventBus, Subscription } from '@formgate/bus';
import { DEFAULT_FORM_NOTIFICATIONS, decodeEvent, type Form, Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { createMailFiles } from '@formgate/mail';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_TUNING } from '../src/deliveries/tuning.ts';
import type { DeliveryLog } from '../src/store/index.ts';
import { recordOf } from './bus-records.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { engineOf, startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const OWNER = 'owner@example.com';

/** `target` with `method` throwing once, the first time `when` holds for its arguments. */
function failingOnce<T extends object>(target: T, method: keyof T, when: (...args: unknown[]) => boolean = () => true) {
  const state = { failed: false };
  const proxy = new Proxy(target, {
    get(t, prop, receiver) {
      const value = Reflect.get(t, prop, receiver);
      if (prop !== method || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!state.failed && when(...args)) {
          state.failed = true;
          return Promise.reject(new Error(`${String(method)} failed (test)`));
        }
        return value.apply(t, args);
      };
    },
  });
  return { proxy, state };
}

/**
 * A no-store submission's settling interrupted at each step by another instance (an engine built from the
 * service's deps, its store or bus failing once, as a process that stops there would leave it): the service's sweep
 * (the process after a restart) ends it settled and dropped, its event published under the same id.
 */
describe('settling a no-store submission after a failure or a stop mid-way', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  let follower: Subscription;
  const published: BusMessage[] = [];
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: true, keptMail: createMailFiles });
    receiver = await startReceiver();
    follower = await svc.bus.replay(Topics.notificationsDelivery, (m) => void published.push(m));
  });
  afterAll(async () => {
    await follower.stop();
    await receiver.close();
    await svc.stop();
  });

  const settledOf = (submissionId: string) =>
    published.flatMap((m) => {
      const event = decodeEvent(Topics.notificationsDelivery, m.value);
      return event.type === 'submission.settled' && event.data.submissionId === submissionId ? [event] : [];
    });
  const mailsOf = (submissionId: string) => svc.mails().filter((m) => m.subject.endsWith(submissionId));
  const hooksOf = (submissionId: string) => receiver.requests.filter((r) => r.body.includes(submissionId));

  /** A no-store form mailing a verified address and posting to the receiver. */
  async function noStoreForm(): Promise<Form> {
    const orgId = `org_${randomUUID()}`;
    await svc.verify(orgId, OWNER);
    const form = await svc.publishForm(orgId, {
      storeContent: false,
      notifications: { ...DEFAULT_FORM_NOTIFICATIONS, emails: [OWNER] },
    });
    await svc.addWebhook(form, { url: receiver.url });
    return form;
  }
  /** Hands a new submission of `form` to `handler` directly (the service's own groups never see it). */
  async function handled(handler: ReturnType<typeof engineOf>['handler'], form: Form) {
    const event = svc.submissionEvent(form);
    await handler([recordOf(event, 0, 0)]);
    await handler.drain();
    return { event, id: event.submissionId };
  }
  /** What notifications keep of the submission's content. */
  const kept = async (form: Form, id: string) => ({
    copy: (await svc.stores.views.getSubmission(form, id)) !== null,
    address: JSON.stringify(await svc.deliveriesOf(form, id)).includes(OWNER),
    mails: mailsOf(id).length,
  });
  const NOTHING = { copy: false, address: false, mails: 0 };
  const sweepAfterTheGrace = async () => {
    svc.clock.now += DELIVERY_TUNING.settleGraceMs + 1_000;
    await svc.service.settleSubmissions();
  };

  it('published, then stopped before dropping: the sweep publishes the same event again and drops it', async () => {
    const form = await noStoreForm();
    const log = failingOnce<DeliveryLog>(svc.deps.stores.log, 'redactSubmission');
    const { handler } = engineOf({ ...svc.deps, stores: { ...svc.deps.stores, log: log.proxy } });
    const { id } = await handled(handler, form);

    await eventually(() => expect(log.state.failed).toBe(true));
    expect(settledOf(id)).toHaveLength(1);
    expect(await kept(form, id)).toEqual({ copy: true, address: true, mails: 1 });
    expect((await svc.stores.settlements.get(id))?.settledAt).toBeNull();

    await sweepAfterTheGrace();
    expect(settledOf(id)).toHaveLength(2);
    // The same event: same id, same data (its `settledAt` comes from the log, not from when it was published).
    expect(settledOf(id)[1]).toEqual(settledOf(id)[0]);
    expect(await kept(form, id)).toEqual(NOTHING);
    expect(hooksOf(id)).toHaveLength(1);
    // Closed: the next sweeps leave it.
    await sweepAfterTheGrace();
    expect(settledOf(id)).toHaveLength(2);
  });

  it('its publication failed: nothing dropped until the sweep publishes it once', async () => {
    const form = await noStoreForm();
    const isSettled = (_topic: unknown, messages: unknown) =>
      (messages as { value: string }[]).some((m) => m.value.includes('"submission.settled"'));
    const bus = failingOnce<EventBus>(svc.bus, 'publish', isSettled);
    const { handler } = engineOf({ ...svc.deps, bus: bus.proxy });
    const { id } = await handled(handler, form);

    await eventually(() => expect(bus.state.failed).toBe(true));
    expect(settledOf(id)).toEqual([]);
    expect(await kept(form, id)).toEqual({ copy: true, address: true, mails: 1 });
    // Before its grace the sweep leaves it to whoever planned it.
    await svc.service.settleSubmissions();
    expect(settledOf(id)).toEqual([]);

    await sweepAfterTheGrace();
    expect(settledOf(id)).toHaveLength(1);
    expect(await kept(form, id)).toEqual(NOTHING);
  });

  it('its deliveries planned again once settled (a redelivered batch): nothing sent, its copy dropped again', async () => {
    const form = await noStoreForm();
    const { handler } = engineOf(svc.deps);
    const { event, id } = await handled(handler, form);
    await eventually(async () => expect((await svc.stores.settlements.get(id))?.settledAt).toEqual(expect.any(String)));
    expect(await kept(form, id)).toEqual(NOTHING);

    await handler([recordOf(event, 0, 0)]);
    await handler.drain();
    expect(await kept(form, id)).toEqual(NOTHING);
    expect(hooksOf(id)).toHaveLength(1);
    expect(settledOf(id)).toHaveLength(1);
  });
});
