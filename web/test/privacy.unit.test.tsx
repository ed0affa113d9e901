import type {
  ErasureReceipt,
  ErasureSummary,
  FormRetentionDto,
  RetentionPolicyDto,
  SignedErasureReceipt,
  SubjectAccessDto,
} from '@formgate/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { toast } from 'sonner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '../src/components/panel.tsx';
import { formsKeys } from '../src/features/forms/forms.queries.ts';
import { privacyKeys } from '../src/features/privacy/privacy.queries.ts';
import { activeMemberKey, activeOrganizationKey } from '../src/lib/auth-invalidation.ts';
import { type ApiHandler, startApi } from './api-server.ts';
import { renderApp, signedIn } from './render-app.tsx';
import { closeAfterEach } from './screen-test.ts';

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

const signed: SignedErasureReceipt = {
  receipt: {
    type: 'erasure-receipt/1',
    id: 'er_new',
    orgId: 'org1',
    requestedBy: { id: 'u1', via: 'session' },
    addressKey: 'k3yedHash',
    erasedAt: '2026-11-02T09:30:00.000Z',
    count: 2,
    forms: ['f1', 'f2'],
    submissions: [
      { id: 'sub_a', formId: 'f1', receivedAt: at },
      { id: 'sub_b', formId: 'f2', receivedAt: at },
    ],
  },
  signature: { alg: 'Ed25519', keyId: 'a1b2c3d4e5f60718', value: 'c2lnbmF0dXJl' },
};
const summary = ({ type: _t, submissions: _s, ...rest }: ErasureReceipt): ErasureSummary => rest;
const older: ErasureSummary = {
  ...summary(signed.receipt),
  id: 'er_old',
  requestedBy: { id: 'key_9', via: 'api-key' },
  erasedAt: '2026-10-20T08:00:00.000Z',
  count: 1,
  forms: ['f1'],
};
const oldSigned: SignedErasureReceipt = {
  receipt: { ...signed.receipt, ...older, submissions: [{ id: 'sub_old', formId: 'f1', receivedAt: at }] },
  signature: { ...signed.signature, value: 'b2xk' },
};

const hostile = '<img src=x onerror="alert(1)">';
const access: SubjectAccessDto = {
  type: 'subject-access/1',
  orgId: 'org1',
  addressKey: 'k3yedHash',
  generatedAt: '2026-11-03T12:00:00.000Z',
  submissions: [
    {
      id: 'sub_a',
      formId: 'f1',
      formName: 'Contact',
      createdAt: at,
      spam: false,
      held: false,
      fields: [{ name: 'message', value: hostile }],
      files: [
        {
          field: 'cv',
          filename: `${hostile}.pdf`,
          contentType: 'application/pdf',
          size: 2048,
          url: '/api/v1/files/tok_1',
          expiresAt: '2026-11-03T12:15:00.000Z',
        },
        { field: 'photo', filename: 'photo.jpg', contentType: 'image/jpeg', size: 10, url: 'javascript:alert(1)' },
      ],
    },
    { id: 'sub_b', formId: 'f2', formName: 'Newsletter', createdAt: at, spam: true, held: true, fields: [], files: [] },
  ],
};

const track = closeAfterEach();

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
  new Promise<unknown>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.readAsText(blob);
  });

/**
 * The privacy page for `u1` holding `role`, its `/api/*` calls answered by `handle` (the retention, unless it
 * answers it: kept until deleted, no plan maximum).
 */
async function renderPrivacy(role: string, handle: ApiHandler) {
  const api = track(
    await startApi(
      (req) =>
        handle(req) ??
        (req.method === 'GET' && req.path === '/api/v1/retention'
          ? { body: { days: null, planMaxDays: null } }
          : undefined),
    ),
  );
  const view = renderApp('/dashboard/organization/privacy', { session: signedIn('org1'), authBaseUrl: api.url });
  view.queryClient.setQueryData(activeOrganizationKey, organization);
  view.queryClient.setQueryData(activeMemberKey, member('u1', 'ada@example.com', role));
  view.queryClient.setQueryData(formsKeys.list(), [
    { id: 'f1', name: 'Contact', slug: 'contact' },
    { id: 'f2', name: 'Newsletter', slug: 'newsletter' },
  ]);
  await screen.findByRole('heading', { name: 'Acme', level: 1 });
  return { ...view, api };
}

describe('privacy screen', () => {
  afterEach(() => vi.restoreAllMocks());

  it('erases after a plain confirmation, then shows the receipt and downloads it exactly as received', async () => {
    let listed = [older];
    const { api } = await renderPrivacy('owner', (req) => {
      if (req.method === 'POST' && req.path === '/api/v1/erasures') {
        listed = [summary(signed.receipt), older];
        return { status: 201, body: signed };
      }
      if (req.method === 'GET' && req.path === '/api/v1/erasures') return { body: { data: listed } };
      return undefined;
    });
    const form = await screen.findByRole('form', { name: "Erase a person's data" });
    fireEvent.change(within(form).getByLabelText('Email address'), { target: { value: 'Eve@Example.com' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Erase data' }));

    const dialog = await screen.findByRole('alertdialog', { name: 'Erase all data of Eve@Example.com?' });
    expect(dialog.textContent).toContain('Every submission of Acme in which this address appears');
    expect(dialog.textContent).toContain('uploaded files');
    expect(dialog.textContent).toContain('notifications');
    expect(dialog.textContent).toContain('deliveries');
    expect(dialog.textContent).toContain('This cannot be undone.');
    expect(api.requests.some((r) => r.method === 'POST')).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Erase permanently' }));

    const receipt = await screen.findByRole('region', { name: 'Erasure receipt' });
    expect(api.requests).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/api/v1/erasures', body: { email: 'Eve@Example.com' } }),
    );
    expect(await screen.findByText('Erased 2 submissions')).toBeTruthy();
    expect(within(receipt).getByText('Contact, Newsletter')).toBeTruthy();
    expect(
      within(within(receipt).getByRole('list', { name: 'Erased submissions' })).getAllByRole('listitem'),
    ).toHaveLength(2);
    expect(within(receipt).getByText('sub_a')).toBeTruthy();
    expect(within(receipt).getByText(/a1b2c3d4e5f60718/)).toBeTruthy();
    expect(within(receipt).getByText('er_new')).toBeTruthy();
    // The address itself is nowhere on the page once erased.
    expect(document.body.textContent).not.toContain('Eve@Example.com');

    // The list refreshed with the new erasure first.
    await waitFor(() =>
      expect(within(screen.getByRole('list', { name: 'Past erasures' })).getAllByRole('listitem')).toHaveLength(2),
    );

    const { blobs, click } = captureDownloads();
    fireEvent.click(within(receipt).getByRole('button', { name: 'Download receipt' }));
    expect(click).toHaveBeenCalledOnce();
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe('erasure-receipt-er_new.json');
    expect(await textOf(blobs[0] as Blob)).toBe(JSON.stringify(signed));
  });

  it('exports what is held about an address: summary, file links, and the JSON as received', async () => {
    const { api } = await renderPrivacy('admin', (req) => {
      if (req.method === 'POST' && req.path === '/api/v1/subject-access') return { body: access };
      if (req.path === '/api/v1/erasures') return { body: { data: [] } };
      return undefined;
    });
    const panels = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(panels.indexOf("Export a person's data")).toBeLessThan(panels.indexOf("Erase a person's data"));
    const form = await screen.findByRole('form', { name: "Export a person's data" });
    fireEvent.change(within(form).getByLabelText('Email address'), { target: { value: ' Eve@Example.com ' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Export data' }));

    const result = await screen.findByRole('region', { name: 'Data export' });
    expect(api.requests).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/api/v1/subject-access', body: { email: 'Eve@Example.com' } }),
    );
    expect(await screen.findByText('2 submissions found')).toBeTruthy();
    expect(within(result).getByText('2 submissions')).toBeTruthy();
    expect(within(result).getByText('Contact, Newsletter')).toBeTruthy();

    const files = within(within(result).getByRole('list', { name: 'Exported files' })).getAllByRole('listitem');
    expect(files).toHaveLength(2);
    const [cv, photo] = files as [HTMLElement, HTMLElement];
    const link = within(cv).getByRole('link', { name: `${hostile}.pdf` });
    expect(link.getAttribute('href')).toBe(`${window.location.origin}/api/v1/files/tok_1`);
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(cv.textContent).toContain(`Link expires ${formatDateTime(access.submissions[0]?.files[0]?.expiresAt)}`);
    // A link that is not http(s) is shown as its name only.
    expect(within(photo).queryByRole('link')).toBeNull();
    expect(photo.textContent).toContain('No download link');
    expect(document.querySelector('img')).toBeNull();

    const { blobs, click } = captureDownloads();
    fireEvent.click(within(result).getByRole('button', { name: 'Download JSON' }));
    expect(click).toHaveBeenCalledOnce();
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe('subject-access-2026-11-03.json');
    expect(await textOf(blobs[0] as Blob)).toBe(JSON.stringify(access));
  });

  it('says so when an export finds nothing', async () => {
    await renderPrivacy('owner', (req) =>
      req.path === '/api/v1/subject-access' ? { body: { ...access, submissions: [] } } : undefined,
    );
    const form = await screen.findByRole('form', { name: "Export a person's data" });
    fireEvent.change(within(form).getByLabelText('Email address'), { target: { value: 'nobody@example.com' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Export data' }));
    expect(await screen.findByText('Nothing found for this address')).toBeTruthy();
    const result = await screen.findByRole('region', { name: 'Data export' });
    expect(within(result).getByText('0 submissions')).toBeTruthy();
    expect(within(result).queryByRole('list', { name: 'Exported files' })).toBeNull();
  });

  it('refuses an invalid address to export before asking anything', async () => {
    const { api } = await renderPrivacy('owner', () => undefined);
    const form = await screen.findByRole('form', { name: "Export a person's data" });
    fireEvent.change(within(form).getByLabelText('Email address'), { target: { value: 'not-an-address' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Export data' }));
    expect(await within(form).findByText('Enter a valid email address')).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Data export' })).toBeNull();
    expect(api.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('refuses an invalid address before asking anything', async () => {
    const { api } = await renderPrivacy('admin', (req) =>
      req.path === '/api/v1/erasures' ? { body: { data: [] } } : undefined,
    );
    const form = await screen.findByRole('form', { name: "Erase a person's data" });
    fireEvent.change(within(form).getByLabelText('Email address'), { target: { value: 'not-an-address' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Erase data' }));
    expect(await within(form).findByText('Enter a valid email address')).toBeTruthy();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(await screen.findByText('No erasures yet.')).toBeTruthy();
    expect(api.requests.some((r) => r.method === 'POST')).toBe(false);
  });

  it('a member is told only owners and admins can erase, and sees no form and no list', async () => {
    const { api } = await renderPrivacy('member', () => undefined);
    expect(await screen.findByText(/Only owners and admins of the organization can erase/)).toBeTruthy();
    expect(screen.queryByRole('form', { name: "Erase a person's data" })).toBeNull();
    expect(screen.queryByLabelText('Email address')).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Past erasures' })).toBeNull();
    expect(screen.queryByRole('heading', { name: "Export a person's data" })).toBeNull();
    expect(screen.queryByRole('form', { name: "Export a person's data" })).toBeNull();
    expect(api.requests.some((r) => r.path.startsWith('/api/v1/erasures'))).toBe(false);
    expect(api.requests.some((r) => r.path === '/api/v1/subject-access')).toBe(false);
  });

  it('lists past erasures (time, who, count, forms), each opening its receipt', async () => {
    const { api } = await renderPrivacy('admin', (req) => {
      if (req.path === '/api/v1/erasures') return { body: { data: [summary(signed.receipt), older] } };
      if (req.path === '/api/v1/erasures/er_old') return { body: oldSigned };
      return undefined;
    });
    const list = await screen.findByRole('list', { name: 'Past erasures' });
    const [first, second] = within(list).getAllByRole('listitem') as [HTMLElement, HTMLElement];
    expect(first.textContent).toContain('2 submissions');
    expect(first.textContent).toContain('By ada@example.com');
    expect(first.textContent).toContain('Contact, Newsletter');
    expect(second.textContent).toContain('1 submission');
    expect(second.textContent).toContain('By API key key_9');
    expect(api.requests).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/v1/erasures' }));

    fireEvent.click(within(second).getByRole('button', { name: /^Show the receipt of/ }));
    const receipt = await within(second).findByRole('region', { name: 'Receipt of erasure er_old' });
    expect(within(receipt).getByText('sub_old')).toBeTruthy();
    expect(within(receipt).getByRole('button', { name: 'Download receipt' })).toBeTruthy();
    expect(api.requests).toContainEqual(expect.objectContaining({ path: '/api/v1/erasures/er_old' }));
  });

  it('is a section of the organization settings', async () => {
    await renderPrivacy('owner', () => undefined);
    const sections = screen.getByRole('navigation', { name: 'Organization sections' });
    expect(within(sections).getByRole('link', { name: 'Privacy' }).getAttribute('aria-current')).toBe('page');
    expect(within(sections).getByRole('link', { name: 'General' }).getAttribute('href')).toBe(
      '/dashboard/organization',
    );
  });
});

/** The retention API: `GET` answers `policy`, a `PATCH` saves its days unless `refuse` says the plan allows fewer. */
function retentionApi(policy: RetentionPolicyDto, refuse?: (days: number | null) => string | undefined): ApiHandler {
  return (req) => {
    if (req.path !== '/api/v1/retention') return undefined;
    if (req.method === 'GET') return { body: policy };
    if (req.method !== 'PATCH') return undefined;
    const { days } = req.body as { days: number | null };
    const refusal = refuse?.(days);
    if (refusal)
      return { status: 403, body: { error: { code: 'PLAN_LIMIT_REACHED', message: refusal, requestId: 'r1' } } };
    Object.assign(policy, { days });
    return { body: policy };
  };
}

const retentionPanel = async () => within(await screen.findByRole('region', { name: 'Retention' }));
const input = (element: HTMLElement) => element as HTMLInputElement;
const patches = (api: { requests: { method: string; path: string; body: unknown }[] }) =>
  api.requests.filter((r) => r.method === 'PATCH' && r.path === '/api/v1/retention');

describe('retention', () => {
  afterEach(() => {
    toast.dismiss();
    vi.restoreAllMocks();
  });

  it('shows the default and the plan maximum, and saves a number of days; forms’ retentions refresh', async () => {
    const { api, queryClient } = await renderPrivacy('owner', retentionApi({ days: null, planMaxDays: 365 }));
    // A form's retention in force, as its settings read it: stale once the default changes.
    const formRetention: FormRetentionDto = {
      days: 365,
      source: 'plan',
      formDays: null,
      organizationDays: null,
      planMaxDays: 365,
      oldestSubmissionAt: null,
      nextDeletionAt: null,
    };
    queryClient.setQueryData(formsKeys.retention('f1'), formRetention);
    const panel = await retentionPanel();
    expect(await panel.findByText('Submissions are kept until deleted unless a form sets its own.')).toBeTruthy();
    expect(panel.getByText('Your plan keeps submissions at most 365 days.')).toBeTruthy();
    expect(panel.getByText('At most 365 days on your plan.')).toBeTruthy();
    expect(input(panel.getByLabelText('Keep until deleted')).checked).toBe(true);
    const days = input(panel.getByLabelText('Days to keep submissions'));
    expect(days.disabled).toBe(true);
    const save = panel.getByRole('button', { name: 'Save retention' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    fireEvent.click(panel.getByLabelText('Delete after a number of days'));
    expect(days.disabled).toBe(false);
    fireEvent.change(days, { target: { value: ' 30 ' } });
    fireEvent.click(save);

    expect(
      await screen.findByText('Retention saved. Submissions are deleted after 30 days unless a form sets its own.'),
    ).toBeTruthy();
    expect(patches(api).map((r) => r.body)).toEqual([{ days: 30 }]);
    expect(await panel.findByText('Submissions are deleted after 30 days unless a form sets its own.')).toBeTruthy();
    expect(queryClient.getQueryData(privacyKeys.retention())).toEqual({ days: 30, planMaxDays: 365 });
    expect(queryClient.getQueryState(formsKeys.retention('f1'))?.isInvalidated).toBe(true);
  });

  it('goes back to keeping submissions until deleted with null; no plan maximum, no plan line', async () => {
    const { api } = await renderPrivacy('admin', retentionApi({ days: 90, planMaxDays: null }));
    const panel = await retentionPanel();
    expect(await panel.findByText('Submissions are deleted after 90 days unless a form sets its own.')).toBeTruthy();
    expect(panel.queryByText(/Your plan keeps/)).toBeNull();
    expect(panel.queryByText(/on your plan/)).toBeNull();
    expect(input(panel.getByLabelText('Delete after a number of days')).checked).toBe(true);
    expect(input(panel.getByLabelText('Days to keep submissions')).value).toBe('90');

    fireEvent.click(panel.getByLabelText('Keep until deleted'));
    expect(input(panel.getByLabelText('Days to keep submissions')).disabled).toBe(true);
    fireEvent.click(panel.getByRole('button', { name: 'Save retention' }));
    expect(await panel.findByText('Submissions are kept until deleted unless a form sets its own.')).toBeTruthy();
    expect(patches(api).map((r) => r.body)).toEqual([{ days: null }]);
  });

  it('shows the server’s refusal of more days than the plan allows, and keeps the default as it was', async () => {
    const message = "The organization's plan keeps submissions at most 365 days";
    const { api } = await renderPrivacy(
      'owner',
      retentionApi({ days: null, planMaxDays: 365 }, (days) => (days !== null && days > 365 ? message : undefined)),
    );
    const panel = await retentionPanel();
    fireEvent.click(await panel.findByLabelText('Delete after a number of days'));
    fireEvent.change(panel.getByLabelText('Days to keep submissions'), { target: { value: '400' } });
    fireEvent.click(panel.getByRole('button', { name: 'Save retention' }));
    expect(await screen.findByText(message)).toBeTruthy();
    expect(patches(api).map((r) => r.body)).toEqual([{ days: 400 }]);
    expect(screen.queryByText(/^Retention saved. Submissions are deleted after 400 days/)).toBeNull();
    expect(panel.getByText('Submissions are kept until deleted unless a form sets its own.')).toBeTruthy();
    // What was typed stays, to be corrected.
    expect(input(panel.getByLabelText('Days to keep submissions')).value).toBe('400');
  });

  it('refuses days that are not a whole number from 1 to 3,650 before asking anything', async () => {
    const { api } = await renderPrivacy('owner', retentionApi({ days: null, planMaxDays: null }));
    const panel = await retentionPanel();
    fireEvent.click(await panel.findByLabelText('Delete after a number of days'));
    const days = panel.getByLabelText('Days to keep submissions');
    for (const typed of ['', '0', '1.5', '3651']) {
      fireEvent.change(days, { target: { value: typed } });
      fireEvent.click(panel.getByRole('button', { name: 'Save retention' }));
      expect(await panel.findByText('A whole number of days from 1 to 3,650')).toBeTruthy();
    }
    expect(days.getAttribute('aria-invalid')).toBe('true');
    expect(patches(api)).toEqual([]);
  });

  it('a member reads the default and the plan maximum but cannot change them', async () => {
    const { api } = await renderPrivacy('member', retentionApi({ days: 30, planMaxDays: 365 }));
    const panel = await retentionPanel();
    expect(await panel.findByText('Submissions are deleted after 30 days unless a form sets its own.')).toBeTruthy();
    expect(panel.getByText('Your plan keeps submissions at most 365 days.')).toBeTruthy();
    expect(
      panel.getByText('Only owners and admins of the organization can change how long submissions are kept.'),
    ).toBeTruthy();
    expect(panel.getByLabelText('Keep until deleted').matches(':disabled')).toBe(true);
    expect(panel.getByLabelText('Days to keep submissions').matches(':disabled')).toBe(true);
    const save = panel.getByRole('button', { name: 'Save retention' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.click(save);
    expect(api.requests).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/v1/retention' }));
    expect(patches(api)).toEqual([]);
  });
});
