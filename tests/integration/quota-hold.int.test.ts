import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

describe('embedded mode: over the plan’s monthly quota a submission is held, not lost', () => {
  let app: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'fg-quota-'));
  beforeAll(async () => {
    // Every organization starts on the default plan: here a small one.
    const plans = {
      defaultPlan: 'small',
      plans: [{ id: 'small', name: 'Small', limits: { submissionsPerMonth: 3, emailsPerMonth: 10 } }],
    };
    writeFileSync(join(dir, 'plans.json'), JSON.stringify(plans));
    app = await startTestApp({ PLANS_FILE: join(dir, 'plans.json') });
  });
  afterAll(async () => {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (key: string, body: string) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };

  it('accepts and stores submissions past the limit, held: hidden from the list and counts, listed with held=true, not billed', async () => {
    const org = 'small-plan';
    const form = await app.createForm({ name: 'Quota' }, org);
    for (const i of [1, 2, 3]) await post(form.key, `i=${i}`);
    await eventually(async () => {
      const usage = await app.api('GET', '/api/v1/billing/usage', undefined, org);
      expect(usage.body.submissions).toMatchObject({ used: 3, max: 3 });
    });
    // Ingest follows billing.quota; give the view a moment to see the organization go over.
    await new Promise((r) => setTimeout(r, 300));
    const over = [await post(form.key, 'i=4'), await post(form.key, 'i=5')];
    const held = await eventually(async () => {
      const l = await app.listSubmissions(form.id, '?held=true', org);
      expect(l.data).toHaveLength(2);
      return l;
    });
    expect(held.data.map((s) => [s.id, s.held])).toEqual([...over].reverse().map((id) => [id, true]));
    const list = await app.listSubmissions(form.id, '', org);
    expect(list.data.map((s) => [s.fields[0]?.value, s.held])).toEqual([
      ['3', false],
      ['2', false],
      ['1', false],
    ]);
    expect((await app.listSubmissions(form.id, '?held=false', org)).data).toHaveLength(3);
    // The export leaves them out too; a search finds them only with held=true.
    expect((await app.listSubmissions(form.id, '?q=4', org)).data).toEqual([]);
    expect((await app.listSubmissions(form.id, '?q=4&held=true', org)).data.map((s) => s.id)).toEqual([over[0]]);
    const detail = await app.api('GET', `/api/v1/forms/${form.id}`, undefined, org);
    expect(detail.body).toMatchObject({ submissionCount: 3, spamCount: 0, heldCount: 2 });
    const listed = await app.api('GET', '/api/v1/forms', undefined, org);
    expect(listed.body.data?.[0]).toMatchObject({ id: form.id, submissionCount: 3, heldCount: 2 });
    const stats = await app.api('GET', `/api/v1/forms/${form.id}/stats?days=1`, undefined, org);
    expect(JSON.stringify(stats.body)).toContain('"total":3');
    // A held submission is not there for the API's actions until it is released.
    const bulk = await app.api(
      'POST',
      `/api/v1/forms/${form.id}/submissions/bulk`,
      { action: 'delete', ids: over },
      org,
    );
    expect(bulk.status).toBe(200);
    expect((bulk.body.data as { result: string }[]).map((d) => d.result)).toEqual(['not_found', 'not_found']);
    expect((await app.listSubmissions(form.id, '?held=true', org)).data).toHaveLength(2);
    const usage = await app.api('GET', '/api/v1/billing/usage', undefined, org);
    expect(usage.body.submissions).toEqual({ used: 3, max: 3, held: 2 });
    expect(usage.body.plan).toEqual({ id: 'small', name: 'Small' });
  });

  it('does not hold another organization’s submissions', async () => {
    const form = await app.createForm({ name: 'Other' }, 'big-plan');
    const id = await post(form.key, 'x=1');
    const list = await eventually(async () => {
      const l = await app.listSubmissions(form.id, '', 'big-plan');
      expect(l.data).toHaveLength(1);
      return l;
    });
    expect(list.data[0]).toMatchObject({ id, held: false });
  });
});
