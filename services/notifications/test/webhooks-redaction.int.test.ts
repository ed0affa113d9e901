import type { DeliveryDto, WebhookEndpointDto } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactWebhookUrl } from '../src/endpoints/webhook-url.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { startWebhookService, type WebhookService } from './webhook-service-harness.ts';

/** A webhook URL can be a credential (Slack, Discord): members see it redacted, owners and admins in full. */
describe('webhook URLs in the delivery log and the endpoints list', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: true });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await svc.stop();
  });

  it('redacts to scheme://host/…last 4, never showing credentials in the URL', () => {
    expect(redactWebhookUrl('https://hooks.slack.com/services/T0/B0/abcdefSECRETwxyz')).toBe(
      'https://hooks.slack.com/…wxyz',
    );
    expect(redactWebhookUrl('https://user:pass@example.com:8443/in?token=s3cr3t')).toBe(
      'https://example.com:8443/…cr3t',
    );
    expect(redactWebhookUrl('https://example.com/')).toBe('https://example.com/');
    expect(redactWebhookUrl('not a url')).toBe('…');
  });

  it('shows members a redacted target and URL, owners and admins the full ones', async () => {
    const form = await svc.publishForm();
    const secretPath = '/services/T0123/B0456/Xq9Zk2Lm8Np4Rs7Tv1Wy';
    const url = `${receiver.url}${secretPath}`;
    const hook = await svc.addWebhook(form, { url, kind: 'slack' });
    const submissionId = await svc.submit(form);
    await eventually(() => expect(receiver.requests.filter((r) => r.url === secretPath)).toHaveLength(1));

    const path = `/api/v1/forms/${form.id}/submissions/${submissionId}/deliveries`;
    const as = async (role: string) => {
      const res = await svc.api('GET', path, { orgId: form.orgId, roles: [role] });
      expect(res.status).toBe(200);
      return (res.body.data as DeliveryDto[]).filter((d) => d.channel === 'webhook');
    };
    await eventually(async () => expect((await as('owner'))[0]?.status).toBe('succeeded'));
    expect((await as('owner'))[0]).toMatchObject({ target: url, targetId: hook.id });
    expect((await as('admin'))[0]?.target).toBe(url);
    const member = await as('member');
    expect(member[0]).toMatchObject({ target: `${receiver.url}/…v1Wy`, targetId: hook.id });
    expect(JSON.stringify(member)).not.toContain('Xq9Zk2Lm8Np4Rs7T');

    const list = async (role: string) => {
      const res = await svc.api('GET', `/api/v1/forms/${form.id}/webhooks`, { orgId: form.orgId, roles: [role] });
      expect(res.status).toBe(200);
      return res.body.data as WebhookEndpointDto[];
    };
    expect((await list('owner'))[0]?.url).toBe(url);
    expect((await list('member'))[0]?.url).toBe(`${receiver.url}/…v1Wy`);
    expect(JSON.stringify(await list('member'))).not.toContain('Xq9Zk2Lm8Np4Rs7T');
  });
});
