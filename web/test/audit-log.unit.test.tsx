import { type AuditEntryDto, authorize } from '@formgate/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../src/components/panel.tsx';
import { describeAuditEntry } from '../src/features/audit-log/audit-entries.ts';
import { readAuditEntries } from '../src/features/audit-log/audit-log.queries.ts';
import { formsKeys } from '../src/features/forms/forms.queries.ts';
import { setApiBaseUrl } from '../src/lib/api.ts';
import { activeMemberKey, activeOrganizationKey } from '../src/lib/auth-invalidation.ts';
import { type ApiHandler, startApi } from './api-server.ts';
import { type AuditWorld, auditLogApi, chainOf, type EntrySpec } from './audit-log-api.ts';
import { renderApp, signedIn } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach } from './screen-test.ts';

allowSlowScreens();
const track = closeAfterEach();

const at = '2026-11-01T10:00:00.000Z';
const member = (id: string, email: string, role: string) => ({
  id: `m-${id}`,
  organizationId: 'org1',
  userId: id,
  role,
  createdAt: at,
  user: { id, name: email.split('@')[0], email, image: null },
});
const organization = {
  id: 'org1',
  name: 'Acme',
  slug: 'acme',
  createdAt: at,
  members: [member('u1', 'ada@example.com', 'owner'), member('u2', 'bob@example.com', 'admin')],
  invitations: [],
  teams: [],
};
const ada = { userId: 'u1', email: 'ada@example.com' };
const bob = { userId: 'u2', email: 'bob@example.com' };
const hostile = '<img src=x onerror="alert(1)">';

/** An entry of the day `day` of November 2026, at noon UTC (the same local day from UTC−11 to UTC+11). */
const entry = (day: number, type: string, actor: EntrySpec['actor'], data: Record<string, string>): EntrySpec => ({
  type,
  actor,
  occurredAt: `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`,
  data,
});

/** Every kind of entry, oldest first, with the sentence and the "who" the screen shows for each. */
const KINDS: [EntrySpec, string, string][] = [
  [entry(1, 'organization.created', ada, { name: 'Acme', slug: 'acme' }), 'Created the organization "Acme"', 'ada'],
  [
    entry(2, 'member.added', ada, { memberId: 'm-u2', userId: 'u2', role: 'admin' }),
    'Added bob@example.com as admin',
    'ada',
  ],
  [
    entry(3, 'member.role-updated', ada, { memberId: 'm9', userId: 'u9', role: 'admin', previousRole: 'member' }),
    "Changed a member's role from member to admin",
    'ada',
  ],
  [
    entry(4, 'invitation.created', ada, { invitationId: 'i1', email: 'cy@example.com', role: 'member' }),
    'Invited cy@example.com as member',
    'ada',
  ],
  [entry(5, 'team.created', ada, { teamId: 't1', name: hostile }), `Created the team "${hostile}"`, 'ada'],
  [entry(6, 'api-key.created', ada, { keyId: 'k1', name: 'ci', scope: 'write' }), 'Created API key "ci"', 'ada'],
  [entry(7, 'user.signed-in', bob, { ...bob, method: 'password' }), 'Signed in with a password', 'bob'],
  [
    entry(8, 'user.sign-in-failed', null, { ...bob, reason: 'password' }),
    'Failed sign-in for bob@example.com at the password step',
    'Formgate',
  ],
  [entry(9, 'two-factor.enabled', bob, bob), 'Turned on two-factor', 'bob'],
  [
    entry(10, 'plan.changed', null, { plan: 'pro', status: 'active', source: 'stripe' }),
    'Changed the plan to pro',
    'Formgate',
  ],
  [
    entry(11, 'export.created', ada, { kind: 'submissions', formId: 'f9', format: 'csv' }),
    'Exported submissions of a form (CSV)',
    'ada',
  ],
  [
    entry(12, 'export.created', ada, { kind: 'submissions', formId: 'f1', format: 'json' }),
    'Exported submissions of "Contact" (JSON)',
    'ada',
  ],
  [
    entry(13, 'erasure.completed', ada, { erasureId: 'er1', addressKey: 'k', count: '3' }),
    'Erased 3 submissions of one address',
    'ada',
  ],
  [
    entry(14, 'webhook.paused', { userId: 'u2', email: null }, { formId: 'f1', reason: 'failing' }),
    'webhook.paused — formId: f1, reason: failing',
    'bob',
  ],
];
const WHO: Record<string, string> = { ada: 'ada@example.com', bob: 'bob@example.com', Formgate: 'Formgate' };

/** `count` sign-ins, one an hour from 1 November, oldest first. */
const signIns = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    ...entry(1, 'user.signed-in', bob, { ...bob, method: 'password' }),
    occurredAt: new Date(Date.UTC(2026, 10, 1) + i * 3_600_000).toISOString(),
  }));

/** The audit log at `path` for `u1` holding `role`, over the stand-in holding `entries` (`handle` answers first). */
async function openAuditLog(
  role: string,
  entries: AuditEntryDto[],
  path = '/dashboard/organization/audit-log',
  handle: ApiHandler = () => undefined,
) {
  const world: AuditWorld = { role, entries };
  const api = track(await startApi((req) => handle(req) ?? auditLogApi(world)(req)));
  const view = renderApp(path, { session: signedIn('org1'), authBaseUrl: api.url });
  view.queryClient.setQueryData(activeOrganizationKey, organization);
  view.queryClient.setQueryData(activeMemberKey, member('u1', 'ada@example.com', role));
  view.queryClient.setQueryData(formsKeys.list(), [{ id: 'f1', name: 'Contact', slug: 'contact' }]);
  await screen.findByRole('heading', { name: 'Acme', level: 1 });
  const listed = () => api.requests.filter((r) => r.path === '/api/v1/orgs/audit-log').map((r) => r.query);
  const location = () => view.router.state.location.search;
  return { ...view, api, world, listed, location };
}

const table = () => screen.findByRole('table', { name: 'Audit log entries' });
/** The rows of the entries (the header row left out), each as its cells' text. */
const rowsOf = (t: HTMLElement) =>
  within(t)
    .getAllByRole('row')
    .slice(1)
    .map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );

/** Captures what `saveFile` hands the browser: the blobs and the clicked links. */
function captureDownloads() {
  const blobs: Blob[] = [];
  URL.createObjectURL ??= () => '';
  URL.revokeObjectURL ??= () => {};
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    blobs.push(blob as Blob);
    return 'blob:download';
  });
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
  return { blobs, click };
}

/** jsdom's Blob has no `text()`; its FileReader reads one. */
const textOf = (blob: Blob) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.readAsText(blob);
  });

const change = (field: HTMLElement, value: string) => fireEvent.change(field, { target: { value } });

describe('audit log', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lists the entries newest first: local time (exact time as title), who, a sentence, the entry number', async () => {
    const entries = await chainOf(KINDS.map(([spec]) => spec));
    await openAuditLog('admin', entries);
    const rows = rowsOf(await table());
    expect(rows).toEqual(
      KINDS.map(([spec, what, who], i) => [formatDateTime(spec.occurredAt), WHO[who], what, `#${i + 1}`]).reverse(),
    );
    const newest = (await table()).querySelector('tbody time');
    expect(newest?.getAttribute('title')).toBe('2026-11-14T12:00:00.000Z');
    expect(newest?.getAttribute('dateTime')).toBe('2026-11-14T12:00:00.000Z');
    // Entries are text: a name that looks like markup stays text.
    expect(document.querySelector('img')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('reads the passkey entries: one added (with its name), one removed, a sign-in with one', () => {
    const names = { member: () => undefined, form: () => undefined };
    const added = { type: 'passkey.added', data: { ...bob, passkeyId: 'pk1', name: 'Work laptop' } };
    expect(describeAuditEntry(added, names)).toBe('Added a passkey "Work laptop"');
    expect(describeAuditEntry({ type: 'passkey.removed', data: { ...bob, passkeyId: 'pk1' } }, names)).toBe(
      'Removed a passkey',
    );
    expect(describeAuditEntry({ type: 'user.signed-in', data: { ...bob, method: 'passkey' } }, names)).toBe(
      'Signed in with a passkey',
    );
  });

  it('reads the single sign-on entries: the provider and its domain, sign-ins through it, the requirement', () => {
    const names = { member: () => undefined, form: () => undefined };
    const sso = { providerId: 'acme-k3x9qa', domain: 'acme.test' };
    const said = (type: string, data: Record<string, string>) => describeAuditEntry({ type, data }, names);
    expect(said('sso.provider-registered', sso)).toBe('Connected an identity provider for single sign-on (acme.test)');
    expect(said('sso.provider-updated', { ...sso, domain: 'acme.test,acme.org' })).toBe(
      'Changed the identity provider for single sign-on (acme.test, acme.org)',
    );
    expect(said('sso.domain-verified', sso)).toBe('Verified acme.test for single sign-on');
    expect(said('sso.provider-removed', sso)).toBe('Removed the identity provider for single sign-on (acme.test)');
    expect(said('user.signed-in', { ...bob, method: 'sso' })).toBe('Signed in with single sign-on');
    // The organization's settings as they stand after the change (older entries hold neither, or only two-factor).
    expect(
      said('organization.updated', { name: 'Acme', slug: 'acme', requireTwoFactor: 'false', requireSso: 'true' }),
    ).toBe('Updated the organization "Acme" (two-factor not required; single sign-on required of members)');
    expect(said('organization.updated', { name: 'Acme', slug: 'acme', requireSso: 'false' })).toBe(
      'Updated the organization "Acme" (single sign-on not required)',
    );
    expect(said('organization.updated', { name: 'Acme', slug: 'acme' })).toBe('Updated the organization "Acme"');
  });

  it('filters by the single sign-on entries, one type or all four', async () => {
    const entries = await chainOf([
      entry(1, 'sso.provider-registered', ada, { providerId: 'acme-k3x9qa', domain: 'acme.test' }),
      entry(2, 'sso.domain-verified', ada, { providerId: 'acme-k3x9qa', domain: 'acme.test' }),
      entry(3, 'user.signed-in', bob, { ...bob, method: 'sso' }),
    ]);
    const { listed } = await openAuditLog('owner', entries);
    await table();
    const type = screen.getByLabelText('Type') as HTMLSelectElement;
    const group = within(type).getByRole('group', { name: 'Single sign-on' });
    expect(
      within(group)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual([
      'Any single sign-on change',
      'Identity provider connected',
      'Identity provider changed',
      'Domain verified',
      'Identity provider removed',
    ]);
    change(type, 'sso.provider-registered,sso.provider-updated,sso.domain-verified,sso.provider-removed');
    fireEvent.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() =>
      expect(rowsOf(screen.getByRole('table')).map((r) => r[2])).toEqual([
        'Verified acme.test for single sign-on',
        'Connected an identity provider for single sign-on (acme.test)',
      ]),
    );
    expect(listed().at(-1)?.get('type')).toBe(
      'sso.provider-registered,sso.provider-updated,sso.domain-verified,sso.provider-removed',
    );
  });

  it('filters by type, person and days; the filters live in the address and reach the API as times', async () => {
    const entries = await chainOf(KINDS.map(([spec]) => spec));
    const { listed, location } = await openAuditLog('owner', entries);
    await table();
    const form = screen.getByRole('form', { name: 'Filter the audit log' });
    change(within(form).getByLabelText('Type'), 'member.added,member.role-updated,member.removed');
    expect((within(form).getByLabelText('Type') as HTMLSelectElement).selectedOptions[0]?.textContent).toBe(
      'Any member change',
    );
    change(within(form).getByLabelText('Who (email address)'), ' ADA@example.com ');
    change(within(form).getByLabelText('From'), '2026-11-03');
    change(within(form).getByLabelText('To'), '2026-11-05');
    fireEvent.click(within(form).getByRole('button', { name: 'Apply filters' }));

    await waitFor(() => expect(rowsOf(screen.getByRole('table')).map((r) => r[2])).toEqual([KINDS[2]?.[1]]));
    expect(location()).toBe(
      '?type=member.added%2Cmember.role-updated%2Cmember.removed&actor=ADA%40example.com&from=2026-11-03&to=2026-11-05',
    );
    expect(Object.fromEntries(listed().at(-1) ?? [])).toEqual({
      type: 'member.added,member.role-updated,member.removed',
      actor: 'ADA@example.com',
      from: new Date(2026, 10, 3).toISOString(),
      // The last day is included: up to the next local midnight.
      to: new Date(2026, 10, 6).toISOString(),
      limit: '50',
    });

    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(rowsOf(screen.getByRole('table'))).toHaveLength(KINDS.length));
    expect(location()).toBe('');
    expect((screen.getByLabelText('Who (email address)') as HTMLInputElement).value).toBe('');
  });

  it('reads its filters from the address, so a reload keeps them', async () => {
    const entries = await chainOf(KINDS.map(([spec]) => spec));
    const { listed } = await openAuditLog(
      'admin',
      entries,
      '/dashboard/organization/audit-log?type=api-key.created&actor=ada%40example.com&from=2026-11-01',
    );
    expect(rowsOf(await table())).toEqual([
      [formatDateTime(KINDS[5]?.[0].occurredAt), 'ada@example.com', 'Created API key "ci"', '#6'],
    ]);
    expect((screen.getByLabelText('Type') as HTMLSelectElement).value).toBe('api-key.created');
    expect((screen.getByLabelText('Who (email address)') as HTMLInputElement).value).toBe('ada@example.com');
    expect((screen.getByLabelText('From') as HTMLInputElement).value).toBe('2026-11-01');
    expect(Object.fromEntries(listed()[0] ?? [])).toEqual({
      type: 'api-key.created',
      actor: 'ada@example.com',
      from: new Date(2026, 10, 1).toISOString(),
      limit: '50',
    });
  });

  it('refuses an address that is not one, and a last day before the first, before asking anything', async () => {
    const { listed } = await openAuditLog('owner', await chainOf(KINDS.map(([spec]) => spec)));
    await table();
    const form = screen.getByRole('form', { name: 'Filter the audit log' });
    change(within(form).getByLabelText('Who (email address)'), 'ada');
    change(within(form).getByLabelText('From'), '2026-11-05');
    change(within(form).getByLabelText('To'), '2026-11-04');
    fireEvent.click(within(form).getByRole('button', { name: 'Apply filters' }));
    expect(await within(form).findByText('Enter a valid email address')).toBeTruthy();
    expect(within(form).getByText('Choose a day on or after “From”')).toBeTruthy();
    expect(listed()).toHaveLength(1);
  });

  it('loads older entries with "Load more", from the cursor of the last page', async () => {
    const { listed } = await openAuditLog('admin', await chainOf(signIns(60)));
    expect(rowsOf(await table())).toHaveLength(50);
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(rowsOf(screen.getByRole('table'))).toHaveLength(60));
    expect(rowsOf(screen.getByRole('table')).at(-1)?.[3]).toBe('#1');
    expect(listed().map((q) => q.get('cursor'))).toEqual([null, '50']);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('exports the matching entries as CSV, quoted and with no cell a spreadsheet would run', async () => {
    const entries = await chainOf([
      entry(1, 'team.created', { userId: 'u7', email: '=2+5@example.com' }, { teamId: 't1', name: 'Sales, "EU"' }),
      entry(2, 'plan.changed', null, { plan: 'pro' }),
      entry(3, 'user.signed-in', bob, { ...bob, method: 'password' }),
    ]);
    await openAuditLog(
      'owner',
      entries,
      '/dashboard/organization/audit-log?type=team.created%2Cteam.updated%2Cteam.deleted',
    );
    await table();
    const { blobs, click } = captureDownloads();
    fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByText('Exported 1 entry')).toBeTruthy();
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toMatch(/^audit-log-acme-\d{4}-\d{2}-\d{2}\.csv$/);
    const [team] = entries as [AuditEntryDto];
    expect(await textOf(blobs[0] as Blob)).toBe(
      'Entry,Time (UTC),Type,Who,User id,What,Details,Entry id,Hash\r\n' +
        `1,2026-11-01T12:00:00.000Z,team.created,'=2+5@example.com,u7,"Created the team ""Sales, ""EU""""","{""teamId"":""t1"",""name"":""Sales, \\""EU\\""""}",ev1,${team.hash}\r\n`,
    );
  });

  it('exports every matching entry as JSON, as received, not only the loaded ones', async () => {
    const entries = await chainOf(signIns(130));
    const { listed } = await openAuditLog('admin', entries);
    expect(rowsOf(await table())).toHaveLength(50);
    const { blobs, click } = captureDownloads();
    fireEvent.click(screen.getByRole('button', { name: 'Export JSON' }));
    expect(await screen.findByText('Exported 130 entries')).toBeTruthy();
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toMatch(/^audit-log-acme-\d{4}-\d{2}-\d{2}\.json$/);
    expect(JSON.parse(await textOf(blobs[0] as Blob))).toEqual([...entries].reverse());
    expect(
      listed()
        .slice(1)
        .map((q) => [q.get('limit'), q.get('cursor')]),
    ).toEqual([
      ['100', null],
      ['100', '100'],
    ]);
  });

  it('stops an export at its maximum and says that older entries were left out', async () => {
    const world: AuditWorld = { role: 'owner', entries: await chainOf(signIns(160)) };
    const api = track(await startApi(auditLogApi(world)));
    setApiBaseUrl('');
    const read = await readAuditEntries({ type: 'user.signed-in' }, 150);
    expect(read.complete).toBe(false);
    expect(read.entries.map((e) => e.seq)).toEqual(
      world.entries
        .slice(10)
        .map((e) => e.seq)
        .reverse(),
    );
    expect(api.requests.map((r) => [r.query.get('limit'), r.query.get('cursor')])).toEqual([
      ['100', null],
      ['50', '100'],
    ]);
    expect((await readAuditEntries({}, 160)).complete).toBe(true);
  });

  it('verifies the whole chain page by page: intact, with the last hash to copy', async () => {
    const entries = await chainOf(signIns(1001));
    const { api } = await openAuditLog('owner', entries);
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const head = entries.at(-1)?.hash ?? '';

    fireEvent.click(await screen.findByRole('button', { name: 'Verify the log' }));
    const verdict = await screen.findByText(/^The log is intact/);
    expect(verdict.textContent).toBe(`The log is intact: 1,001 entries, last hash ${head.slice(0, 12)}…`);
    expect(
      api.requests.filter((r) => r.path === '/api/v1/orgs/audit-log/chain').map((r) => r.query.toString()),
    ).toEqual(['after=0&limit=1000', 'after=1000&limit=1000']);
    fireEvent.click(screen.getByRole('button', { name: 'Copy the last hash' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(head));
  });

  it('says where the log was altered when an entry was changed after it was written', async () => {
    const entries = await chainOf(KINDS.map(([spec]) => spec));
    const { world } = await openAuditLog('admin', entries);
    fireEvent.click(await screen.findByRole('button', { name: 'Verify the log' }));
    expect(await screen.findByText(/^The log is intact: 14 entries/)).toBeTruthy();

    // The role a member was given, rewritten in the store: its hash no longer matches.
    const changed = world.entries[2] as AuditEntryDto;
    world.entries[2] = { ...changed, data: { ...changed.data, role: 'owner' } };
    fireEvent.click(screen.getByRole('button', { name: 'Verify the log' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('The log was altered at entry #3: entry 3 was changed after it was written.');
    expect(screen.queryByText(/^The log is intact/)).toBeNull();
  });

  it('says when there is nothing yet, or nothing matching, and offers no export then', async () => {
    await openAuditLog('owner', []);
    expect(await screen.findByText('No entries yet.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Export CSV' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Verify the log' }));
    expect(await screen.findByText('The log has no entries yet.')).toBeTruthy();
  });

  it('says no entry matches the filters, and drops a type it does not offer from the address', async () => {
    const { listed } = await openAuditLog(
      'owner',
      await chainOf(KINDS.map(([spec]) => spec)),
      '/dashboard/organization/audit-log?type=constructor&actor=nobody%40example.com',
    );
    expect(await screen.findByText('No entries match these filters.')).toBeTruthy();
    expect((screen.getByLabelText('Type') as HTMLSelectElement).value).toBe('');
    expect(Object.fromEntries(listed()[0] ?? [])).toEqual({ actor: 'nobody@example.com', limit: '50' });
    expect(screen.getByRole('button', { name: 'Clear filters' })).toBeTruthy();
  });

  it('shows the server’s refusal in place of the list', async () => {
    const denial = authorize(['member'], { organization: ['update'] }).error ?? '';
    // The role changed since the dashboard read it: the server refuses as it words it.
    await openAuditLog('owner', [], undefined, (req) =>
      req.path === '/api/v1/orgs/audit-log'
        ? { status: 403, body: { error: { code: 'FORBIDDEN', message: denial, requestId: 'r1' } } }
        : undefined,
    );
    expect((await screen.findByRole('alert')).textContent).toBe(denial);
    expect(screen.queryByRole('table')).toBeNull();
  });
});

describe('audit log access', () => {
  it('is a section of the organization settings for owners and admins', async () => {
    await openAuditLog('admin', []);
    const sections = screen.getByRole('navigation', { name: 'Organization sections' });
    const link = within(sections).getByRole('link', { name: 'Audit log' });
    expect(link.getAttribute('href')).toBe('/dashboard/organization/audit-log');
    expect(link.getAttribute('aria-current')).toBe('page');
  });

  it('is neither listed nor read for a member, who is told who can read it', async () => {
    const { api } = await openAuditLog('member', []);
    expect(await screen.findByText('Only owners and admins of the organization can read its audit log.')).toBeTruthy();
    const sections = screen.getByRole('navigation', { name: 'Organization sections' });
    expect(within(sections).queryByRole('link', { name: 'Audit log' })).toBeNull();
    expect(within(sections).getByRole('link', { name: 'Privacy' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Verify the log' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).toBeNull();
    expect(api.requests.some((r) => r.path.startsWith('/api/v1/orgs/audit-log'))).toBe(false);
  });
});
