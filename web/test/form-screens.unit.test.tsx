import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from '../src/components/panel.tsx';
import { fillDays } from '../src/features/forms/forms.queries.ts';
import { CONTENT_NOT_STORED, NO_SUBMISSIONS } from '../src/features/submissions/submission-list.tsx';
import { EMPTY_LIST_REFRESH_MS, type Submission } from '../src/features/submissions/submissions.queries.ts';
import { NOTHING_TO_EXPORT } from '../src/features/submissions/submissions-filters.tsx';
import { aDelivery, aForm, aSubmission, startFormsApi } from './forms-api.ts';
import type { renderApp } from './render-app.tsx';
import { allowSlowScreens, closeAfterEach, openAs } from './screen-test.ts';

allowSlowScreens();

const closing = closeAfterEach();
const api = async (init: Parameters<typeof startFormsApi>[0]) => closing(await startFormsApi(init));

const radio = (element: HTMLElement) => element as HTMLInputElement;

const pathOf = (router: ReturnType<typeof renderApp>['router']) =>
  router.state.location.pathname + router.state.location.search;

describe('forms index and creation', () => {
  it('lists each form with its endpoint, counts and state', async () => {
    const server = await api({
      forms: [
        aForm({ submissionCount: 12, lastSubmissionAt: '2026-07-02T10:00:00.000Z' }),
        aForm({
          id: 'f2',
          name: 'Waitlist',
          slug: 'waitlist',
          endpoint: '/f/w41t',
          settings: { ...aForm().settings, enabled: false },
        }),
      ],
    });
    openAs('/dashboard/forms', server.url);
    const list = await screen.findByRole('list', { name: 'Forms' });
    const contact = within(list).getByRole('listitem', { name: 'Contact' });
    expect(within(contact).getByText(`${window.location.origin}/f/k3y`)).toBeTruthy();
    expect(within(contact).getByText('12')).toBeTruthy();
    expect(within(contact).getByText('Enabled')).toBeTruthy();
    expect(within(contact).getByRole('button', { name: 'Copy the endpoint of Contact' })).toBeTruthy();
    const waitlist = within(list).getByRole('listitem', { name: 'Waitlist' });
    expect(within(waitlist).getByText('Disabled')).toBeTruthy();
    expect(within(waitlist).getByText('Never')).toBeTruthy();
  });

  it('shows the empty state without forms', async () => {
    const server = await api({ forms: [] });
    openAs('/dashboard/forms', server.url);
    expect(await screen.findByRole('heading', { name: 'No forms yet' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create your first form' }).getAttribute('href')).toBe(
      '/dashboard/forms/create',
    );
  });

  it('creates a form from its name, shows the slug it will get, and opens its example', async () => {
    const server = await api({ forms: [] });
    const { router } = openAs('/dashboard/forms/create', server.url);
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'Élodie’s Contact Form' } });
    expect(await screen.findByText('/dashboard/forms/elodie-s-contact-form')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Create form' }));
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms/new-form/example'));
    const post = server.requests.find((r) => r.method === 'POST');
    expect(post?.body).toEqual({ name: 'Élodie’s Contact Form' });
    expect(await screen.findByRole('heading', { name: 'HTML form' })).toBeTruthy();
  });

  it('refuses a slug the contract rejects, without a request', async () => {
    const server = await api({ forms: [] });
    openAs('/dashboard/forms/create', server.url);
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'Contact' } });
    fireEvent.change(screen.getByLabelText('Slug (optional)'), { target: { value: 'Not A Slug' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create form' }));
    expect(await screen.findByText(/Lowercase letters, digits and single dashes/)).toBeTruthy();
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });
});

describe('form routes', () => {
  it('an unknown slug goes back to the forms index', async () => {
    const server = await api({ forms: [aForm()] });
    const { router } = openAs('/dashboard/forms/nope/settings', server.url);
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms'));
  });

  it('the form index opens the newest submission', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s3'), aSubmission('s2')] });
    const { router } = openAs('/dashboard/forms/contact', server.url);
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms/contact/submissions/s3'));
    expect(await screen.findByRole('heading', { name: /^Submission of/ })).toBeTruthy();
    expect(screen.getAllByText('s3@example.com').length).toBeGreaterThan(0);
  });

  it('without submissions, opens the first one once it reaches the list, without a reload', async () => {
    const server = await api({ forms: [aForm()], submissions: [] });
    const { router } = openAs('/dashboard/forms/contact/submissions', server.url);
    expect(await screen.findByText('No submissions, follow the examples to setup your form.')).toBeTruthy();
    server.state.submissions.push(aSubmission('s1'));
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms/contact/submissions/s1'), {
      timeout: EMPTY_LIST_REFRESH_MS + 2_000,
    });
  });

  it('without submissions, the submissions index says to follow the examples', async () => {
    const server = await api({ forms: [aForm()], submissions: [] });
    const { router } = openAs('/dashboard/forms/contact/submissions', server.url);
    expect(await screen.findByText('No submissions, follow the examples to setup your form.')).toBeTruthy();
    expect(pathOf(router)).toBe('/dashboard/forms/contact/submissions');
    expect(screen.getByRole('link', { name: 'See the examples' }).getAttribute('href')).toBe(
      '/dashboard/forms/contact/example',
    );
  });

  it('shows the form sections as navigation', async () => {
    const server = await api({ forms: [aForm()] });
    openAs('/dashboard/forms/contact/example', server.url);
    const nav = await screen.findByRole('navigation', { name: 'Form sections' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['Overview', 'Submissions', 'Settings', 'Example']);
    expect(within(nav).getByRole('link', { name: 'Example' }).getAttribute('aria-current')).toBe('page');
  });
});

describe('hostile submissions', () => {
  const hostile = aSubmission('evil', {
    fields: [
      { name: 'name', value: '<script>window.__pwned = 1</script>' },
      { name: 'avatar', value: '<img src=x onerror="window.__pwned = 2">' },
      { name: 'website', value: 'javascript:alert(1)' },
      { name: 'formula', value: '=HYPERLINK("http://evil.example","click")' },
      { name: '"><img src=x onerror=alert(3)>', value: 'field name attack' },
      { name: 'onclick', value: 'alert(4)' },
    ],
    files: [{ field: 'cv', blobKey: 'b1', filename: '<b>cv</b>.html', contentType: 'text/html', size: 10, scan: null }],
  });

  function expectInert(root: HTMLElement) {
    expect(root.querySelector('script')).toBeNull();
    expect(root.querySelector('img')).toBeNull();
    expect(root.querySelector('b')).toBeNull();
    for (const a of root.querySelectorAll('a')) expect(a.getAttribute('href') ?? '').not.toMatch(/^\s*javascript:/i);
    for (const el of root.querySelectorAll('*')) {
      for (const attr of el.getAttributeNames()) expect(attr).not.toMatch(/^on|"|<|>/);
    }
    expect((window as { __pwned?: unknown }).__pwned).toBeUndefined();
  }

  it('renders every value and name as text in the list and the detail', async () => {
    const server = await api({ forms: [aForm()], submissions: [hostile] });
    const { container } = openAs('/dashboard/forms/contact/submissions/evil', server.url);
    const detail = await screen.findByRole('article');
    for (const f of hostile.fields) {
      expect(within(detail).getByText(f.name)).toBeTruthy();
      expect(within(detail).getByText(f.value)).toBeTruthy();
    }
    expect(within(detail).getByText('<b>cv</b>.html')).toBeTruthy();
    const list = screen.getByRole('list', { name: 'Submissions, newest first' });
    expect(
      within(list).getByText('<script>window.__pwned = 1</script> · <img src=x onerror="window.__pwned = 2">'),
    ).toBeTruthy();
    expect(within(detail).getByText('javascript:alert(1)').closest('a')).toBeNull();
    expectInert(container);
  });
});

describe('submission source', () => {
  const detailsOf = async () => {
    const details = await screen.findByRole('region', { name: 'Details' });
    return (term: string) => {
      const dt = within(details).getByText(term, { selector: 'dt' });
      return dt.nextElementSibling as HTMLElement;
    };
  };

  it('shows the origin and referer as plain text, never as links', async () => {
    const referer = 'https://shop.example/contact?q="><img src=x onerror="window.__pwned = 5">';
    const server = await api({
      forms: [aForm()],
      submissions: [aSubmission('s1', { origin: 'https://shop.example', referer })],
    });
    const { container } = openAs('/dashboard/forms/contact/submissions/s1', server.url);
    const dd = await detailsOf();
    expect(dd('Origin').textContent).toBe('https://shop.example');
    expect(dd('Referer').textContent).toBe(referer);
    expect(dd('Origin').querySelector('a')).toBeNull();
    expect(dd('Referer').querySelector('a')).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect((window as { __pwned?: unknown }).__pwned).toBeUndefined();
  });

  it('says when they were not recorded', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s2')] });
    openAs('/dashboard/forms/contact/submissions/s2', server.url);
    const dd = await detailsOf();
    expect(dd('Origin').textContent).toBe('Not recorded');
    expect(dd('Referer').textContent).toBe('Not recorded');
  });
});

describe('submission list', () => {
  it('pages with the cursor on "Load more"', async () => {
    const submissions = Array.from({ length: 30 }, (_, i) => aSubmission(`s${30 - i}`));
    const server = await api({ forms: [aForm()], submissions });
    openAs('/dashboard/forms/contact/submissions', server.url);
    const list = await screen.findByRole('list', { name: 'Submissions, newest first' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(25));
    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(30));
    expect(server.requests.some((r) => r.query.get('cursor') === '25')).toBe(true);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('arrow keys move between the rows', async () => {
    const server = await api({
      forms: [aForm()],
      submissions: [aSubmission('s3'), aSubmission('s2'), aSubmission('s1')],
    });
    openAs('/dashboard/forms/contact/submissions/s3', server.url);
    const list = await screen.findByRole('list', { name: 'Submissions, newest first' });
    const links = within(list).getAllByRole('link');
    links[0]?.focus();
    fireEvent.keyDown(links[0] as HTMLElement, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(links[1]);
    fireEvent.keyDown(links[1] as HTMLElement, { key: 'ArrowDown' });
    fireEvent.keyDown(links[2] as HTMLElement, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(links[2]);
    fireEvent.keyDown(links[2] as HTMLElement, { key: 'ArrowUp' });
    expect(document.activeElement).toBe(links[1]);
  });

  it('bulk actions send exactly the selected ids', async () => {
    const server = await api({
      forms: [aForm()],
      submissions: [aSubmission('s3'), aSubmission('s2'), aSubmission('s1')],
    });
    openAs('/dashboard/forms/contact/submissions/s3', server.url);
    const boxes = await screen.findAllByRole('checkbox', { name: /^Select the submission of/ });
    expect(boxes).toHaveLength(3);
    fireEvent.click(boxes[0] as HTMLElement);
    fireEvent.click(boxes[2] as HTMLElement);
    expect(screen.getByText('2 selected')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Mark spam' }));
    await waitFor(() => expect(server.requests.some((r) => r.path.endsWith('/bulk'))).toBe(true));
    expect(server.requests.find((r) => r.path.endsWith('/bulk'))?.body).toEqual({ action: 'spam', ids: ['s3', 's1'] });
    expect(await screen.findByText('2 submissions marked spam')).toBeTruthy();
  });

  it('a member sees no selection or actions', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s1')] });
    openAs('/dashboard/forms/contact/submissions/s1', server.url, 'member');
    await screen.findByRole('article');
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Mark spam' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('search and filters go to the API and stay in the address', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s1')] });
    const { router } = openAs('/dashboard/forms/contact/submissions/s1', server.url);
    fireEvent.change(await screen.findByLabelText('Search submissions'), { target: { value: 'élodie dupont' } });
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    fireEvent.change(screen.getByLabelText('Spam'), { target: { value: 'false' } });
    await waitFor(() => expect(router.state.location.search).toBe('?q=%C3%A9lodie+dupont&spam=false'));
    await waitFor(() =>
      expect(server.requests.some((r) => r.query.get('q') === 'élodie dupont' && r.query.get('spam') === 'false')).toBe(
        true,
      ),
    );
  });

  it('a route the server lacks becomes the error toast', async () => {
    const server = await api({
      forms: [aForm()],
      submissions: [aSubmission('s1')],
      missing: (method, path) => method === 'PATCH' && path.includes('/submissions/'),
    });
    openAs('/dashboard/forms/contact/submissions/s1', server.url);
    fireEvent.click(await screen.findByRole('button', { name: 'Mark spam' }));
    expect(await screen.findByText('Not found')).toBeTruthy();
  });

  it('deletes a submission after confirming and opens the next newest', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s2'), aSubmission('s1')] });
    const { router } = openAs('/dashboard/forms/contact/submissions/s2', server.url);
    const article = await screen.findByRole('article');
    fireEvent.click(within(article).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete this submission?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms/contact/submissions/s1'));
    expect(server.requests.some((r) => r.method === 'DELETE' && r.path.endsWith('/submissions/s2'))).toBe(true);
  });

  it('exports with the current filters', async () => {
    URL.createObjectURL ??= () => 'blob:export';
    URL.revokeObjectURL ??= () => {};
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s1', { spam: true })] });
    openAs('/dashboard/forms/contact/submissions/s1?spam=true', server.url);
    const trigger = await screen.findByRole('button', { name: 'Export' });
    trigger.focus();
    fireEvent.keyDown(trigger, { key: 'Enter' });
    fireEvent.click(await screen.findByRole('menuitem', { name: 'JSON' }));
    await waitFor(() => expect(server.requests.some((r) => r.path.endsWith('/export'))).toBe(true));
    const exported = server.requests.find((r) => r.path.endsWith('/export'));
    expect(exported?.query.toString()).toBe('spam=true&format=json');
  });

  it('downloads a file through its signed link', async () => {
    const server = await api({
      forms: [aForm()],
      submissions: [
        aSubmission('s1', {
          files: [
            {
              field: 'cv',
              blobKey: 'blob 1',
              filename: 'cv.pdf',
              contentType: 'application/pdf',
              size: 2048,
              scan: null,
            },
          ],
        }),
      ],
    });
    openAs('/dashboard/forms/contact/submissions/s1', server.url);
    fireEvent.click(await screen.findByRole('button', { name: 'Download cv.pdf' }));
    await waitFor(() =>
      expect(server.requests.some((r) => r.path === '/api/v1/forms/f1/submissions/s1/files/blob%201/link')).toBe(true),
    );
    expect(screen.getByText('cv · application/pdf · 2.0 KB')).toBeTruthy();
  });

  it('offers a file for download only once the malware scan found it clean, and flags a quarantined one', async () => {
    const file = (blobKey: string, filename: string, scan: Submission['files'][number]['scan']) => ({
      field: 'upload',
      blobKey,
      filename,
      contentType: 'application/pdf',
      size: 100,
      scan,
    });
    const server = await api({
      forms: [aForm()],
      submissions: [
        aSubmission('s1', {
          files: [
            file('k-clean', 'clean.pdf', { status: 'clean', scannedAt: '2026-07-02T10:00:01.000Z' }),
            file('k-pending', 'pending.pdf', { status: 'pending' }),
            file('k-bad', 'bad.pdf', {
              status: 'infected',
              detail: 'Eicar-Test-Signature <script>',
              scannedAt: '2026-07-02T10:00:01.000Z',
            }),
            file('k-big', 'big.pdf', { status: 'failed', detail: 'larger than the scanner’s limit' }),
          ],
        }),
        aSubmission('s2'),
      ],
    });
    openAs('/dashboard/forms/contact/submissions/s1', server.url);
    expect(await screen.findByRole('button', { name: 'Download clean.pdf' })).toBeTruthy();
    for (const name of ['pending.pdf', 'bad.pdf', 'big.pdf'])
      expect(screen.queryByRole('button', { name: `Download ${name}` })).toBeNull();
    expect(screen.getByText('Being scanned for malware — downloadable once it is found clean.')).toBeTruthy();
    expect(
      screen.getByText('Quarantined: the malware scan found Eicar-Test-Signature <script>. It cannot be downloaded.'),
    ).toBeTruthy();
    expect(screen.getByText(/could not check it \(larger than the scanner’s limit\)/)).toBeTruthy();
    // The submission is flagged on its page and its row; the other is not.
    expect(screen.getAllByText('Quarantined file')).toHaveLength(2);
    expect(document.querySelector('script')).toBeNull();
  });
});

describe('settings', () => {
  it('saves the settings as the API expects them', async () => {
    const server = await api({ forms: [aForm()] });
    openAs('/dashboard/forms/contact/settings', server.url);
    fireEvent.change(await screen.findByLabelText('Redirect URL'), { target: { value: 'https://example.com/thanks' } });
    fireEvent.change(screen.getByLabelText('Allowed origins'), {
      target: { value: 'https://a.example\n\n https://b.example ' },
    });
    fireEvent.change(screen.getByLabelText('Honeypot field'), { target: { value: '_trap' } });
    fireEvent.click(screen.getByLabelText('Accept submissions'));
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(server.requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      name: 'Contact',
      settings: {
        redirectUrl: 'https://example.com/thanks',
        allowedOrigins: ['https://a.example', 'https://b.example'],
        honeypotField: '_trap',
        enabled: false,
        retentionDays: null,
        storeContent: true,
      },
    });
  });

  it('keeps submissions for the form’s own number of days, then shows that in force', async () => {
    const nextDeletionAt = '2026-08-01T10:00:00.000Z';
    const server = await api({
      forms: [aForm()],
      retention: {
        organizationDays: 90,
        planMaxDays: 365,
        oldestSubmissionAt: '2026-05-03T10:00:00.000Z',
        nextDeletionAt,
      },
    });
    openAs('/dashboard/forms/contact/settings', server.url);
    const retention = within(await screen.findByRole('region', { name: 'Retention' }));
    expect(
      await retention.findByText("Submissions are deleted after 90 days (the organization's default)."),
    ).toBeTruthy();
    expect(retention.getByText(`The oldest submission goes on ${formatDateTime(nextDeletionAt)}.`)).toBeTruthy();
    expect(radio(retention.getByLabelText('Organization default')).checked).toBe(true);
    const days = retention.getByLabelText('Days to keep submissions') as HTMLInputElement;
    expect(days.disabled).toBe(true);
    expect(retention.getByText('At most 365 days on your plan.')).toBeTruthy();

    fireEvent.click(retention.getByLabelText('Keep for a number of days'));
    expect(days.disabled).toBe(false);
    fireEvent.change(days, { target: { value: '30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(server.requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toEqual({
      name: 'Contact',
      settings: {
        redirectUrl: null,
        allowedOrigins: [],
        honeypotField: null,
        enabled: true,
        retentionDays: 30,
        storeContent: true,
      },
    });
    // What is in force is asked again after the save.
    expect(await retention.findByText("Submissions are deleted after 30 days (this form's setting).")).toBeTruthy();
    expect(radio(retention.getByLabelText('Keep for a number of days')).checked).toBe(true);
    expect(days.value).toBe('30');
  });

  it('goes back to the organization default with null; the plan’s maximum shows when it is what applies', async () => {
    const server = await api({
      forms: [aForm({ settings: { ...aForm().settings, retentionDays: 30 } })],
      retention: { organizationDays: null, planMaxDays: 365 },
    });
    openAs('/dashboard/forms/contact/settings', server.url);
    const retention = within(await screen.findByRole('region', { name: 'Retention' }));
    expect(await retention.findByText("Submissions are deleted after 30 days (this form's setting).")).toBeTruthy();
    expect(radio(retention.getByLabelText('Keep for a number of days')).checked).toBe(true);
    expect((retention.getByLabelText('Days to keep submissions') as HTMLInputElement).value).toBe('30');
    // No submission stored: nothing is due.
    expect(retention.queryByText(/The oldest submission goes on/)).toBeNull();

    fireEvent.click(retention.getByLabelText('Organization default'));
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(server.requests.some((r) => r.method === 'PATCH')).toBe(true));
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toMatchObject({
      settings: { retentionDays: null },
    });
    expect(await retention.findByText("Submissions are deleted after 365 days (your plan's maximum).")).toBeTruthy();
  });

  it('says submissions are kept when nothing limits them', async () => {
    const server = await api({ forms: [aForm()] });
    openAs('/dashboard/forms/contact/settings', server.url);
    const retention = within(await screen.findByRole('region', { name: 'Retention' }));
    expect(await retention.findByText('Submissions are kept until deleted.')).toBeTruthy();
    expect(retention.queryByText(/on your plan/)).toBeNull();
    expect(server.requests).toContainEqual(
      expect.objectContaining({ method: 'GET', path: '/api/v1/forms/f1/retention' }),
    );
  });

  it('refuses days that are not a whole number from 1 before asking, and shows the server’s refusal', async () => {
    const server = await api({ forms: [aForm()], retention: { planMaxDays: 365 } });
    openAs('/dashboard/forms/contact/settings', server.url);
    const retention = within(await screen.findByRole('region', { name: 'Retention' }));
    fireEvent.click(retention.getByLabelText('Keep for a number of days'));
    const days = retention.getByLabelText('Days to keep submissions');
    fireEvent.change(days, { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    expect(await retention.findByText('A whole number of days from 1 to 3,650')).toBeTruthy();
    expect(days.getAttribute('aria-invalid')).toBe('true');
    expect(server.requests.some((r) => r.method === 'PATCH')).toBe(false);

    fireEvent.change(days, { target: { value: '400' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    expect(await screen.findByText("The organization's plan keeps submissions at most 365 days")).toBeTruthy();
    expect(server.requests.find((r) => r.method === 'PATCH')?.body).toMatchObject({ settings: { retentionDays: 400 } });
    expect(await retention.findByText("Submissions are deleted after 365 days (your plan's maximum).")).toBeTruthy();
  });

  it('refuses a redirect that is not http(s)', async () => {
    const server = await api({ forms: [aForm()] });
    openAs('/dashboard/forms/contact/settings', server.url);
    fireEvent.change(await screen.findByLabelText('Redirect URL'), { target: { value: 'javascript:alert(1)' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    expect(await screen.findByText(/An http:\/\/ or https:\/\/ address/)).toBeTruthy();
    expect(server.requests.some((r) => r.method === 'PATCH')).toBe(false);
  });

  it('deleting needs the form name typed, then deletes and goes to the forms index', async () => {
    const server = await api({ forms: [aForm()] });
    const { router } = openAs('/dashboard/forms/contact/settings', server.url);
    fireEvent.click(await screen.findByRole('button', { name: 'Delete form' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete "Contact"?' });
    const confirm = within(dialog).getByRole('button', { name: 'Delete form' }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    const input = within(dialog).getByLabelText('Type "Contact" to confirm');
    fireEvent.change(input, { target: { value: 'contact' } });
    expect(confirm.disabled).toBe(true);
    fireEvent.change(input, { target: { value: 'Contact' } });
    expect(confirm.disabled).toBe(false);
    fireEvent.click(confirm);
    await waitFor(() => expect(pathOf(router)).toBe('/dashboard/forms'));
    expect(server.requests.some((r) => r.method === 'DELETE' && r.path === '/api/v1/forms/f1')).toBe(true);
  });

  it('only owners and admins see the delete', async () => {
    const server = await api({ forms: [aForm()], retention: { organizationDays: 60 } });
    openAs('/dashboard/forms/contact/settings', server.url, 'member');
    expect(await screen.findByText('Only owners and admins of the organization can change a form.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Delete form' })).toBeNull();
    // A member reads the retention in force but cannot change it.
    const retention = within(screen.getByRole('region', { name: 'Retention' }));
    expect(
      await retention.findByText("Submissions are deleted after 60 days (the organization's default)."),
    ).toBeTruthy();
    expect(retention.getByLabelText('Keep for a number of days').matches(':disabled')).toBe(true);
  });
});

describe('no-store forms (issue 31)', () => {
  const noStore = () => aForm({ settings: { ...aForm().settings, storeContent: false } });
  const NO_STORE_NOTICE =
    "This form doesn't store submissions: they are delivered, then only their time, spam verdict and delivery outcomes are kept.";
  const DONT_STORE =
    "Don't store submissions: deliver them, then keep only the time, spam verdict and delivery outcomes";
  const patches = (server: Awaited<ReturnType<typeof api>>) => server.requests.filter((r) => r.method === 'PATCH');

  it('saves not storing with the settings, explains what it means, and storing again', async () => {
    const server = await api({ forms: [aForm()] });
    openAs('/dashboard/forms/contact/settings', server.url);
    const storage = within(await screen.findByRole('region', { name: 'Storage' }));
    expect(radio(storage.getByLabelText('Store submissions')).checked).toBe(true);
    expect(radio(storage.getByLabelText(DONT_STORE)).checked).toBe(false);
    expect(storage.queryByText('Nothing can be exported.')).toBeNull();

    fireEvent.click(storage.getByLabelText(DONT_STORE));
    const explanation = storage.getByRole('status');
    expect(
      within(explanation).getByText('Notification emails and webhooks still go out for every submission.'),
    ).toBeTruthy();
    expect(explanation.textContent).toContain('Once every delivery of a submission has succeeded or failed for good');
    expect(explanation.textContent).toContain('Nothing can be exported.');
    expect(explanation.textContent).toContain(
      'Held submissions keep their content until they are released and delivered, or deleted.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(patches(server)).toHaveLength(1));
    expect(patches(server)[0]?.body).toEqual({
      name: 'Contact',
      settings: {
        redirectUrl: null,
        allowedOrigins: [],
        honeypotField: null,
        enabled: true,
        retentionDays: null,
        storeContent: false,
      },
    });
    expect(await screen.findByText('Settings saved')).toBeTruthy();
    // The saved form (asked again after the save) shows the choice it keeps.
    await waitFor(() => expect(radio(storage.getByLabelText(DONT_STORE)).checked).toBe(true));

    fireEvent.click(storage.getByLabelText('Store submissions'));
    expect(storage.queryByText('Nothing can be exported.')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Save settings' }));
    await waitFor(() => expect(patches(server)).toHaveLength(2));
    expect(patches(server)[1]?.body).toMatchObject({ settings: { storeContent: true } });
    expect(server.state.forms[0]?.settings.storeContent).toBe(true);
  });

  it('a member reads the storage choice but cannot change it', async () => {
    const server = await api({ forms: [noStore()] });
    openAs('/dashboard/forms/contact/settings', server.url, 'member');
    const storage = within(await screen.findByRole('region', { name: 'Storage' }));
    const dontStore = radio(storage.getByLabelText(DONT_STORE));
    expect(dontStore.checked).toBe(true);
    expect(dontStore.matches(':disabled')).toBe(true);
    expect(storage.getByText('Nothing can be exported.')).toBeTruthy();
  });

  it('a submission that kept only its metadata shows a note instead of its fields, in the list and the detail', async () => {
    const server = await api({
      forms: [noStore()],
      submissions: [aSubmission('s2', { contentDropped: true, fields: [], spam: true }), aSubmission('s1')],
      deliveries: [aDelivery('d1', { submissionId: 's2' })],
    });
    openAs('/dashboard/forms/contact/submissions/s2', server.url);
    const article = await screen.findByRole('article');
    const fields = within(within(article).getByRole('region', { name: 'Fields' }));
    expect(fields.getByText(CONTENT_NOT_STORED)).toBeTruthy();
    expect(fields.queryByText('No fields.')).toBeNull();
    expect(fields.queryByRole('term')).toBeNull();
    // Its time, spam verdict and delivery outcomes stay.
    const details = within(within(article).getByRole('region', { name: 'Details' }));
    expect(details.getByText('Spam', { selector: 'dt' }).nextElementSibling?.textContent).toBe('Yes');
    expect(details.getByText('Origin', { selector: 'dt' }).nextElementSibling?.textContent).toBe('Not stored');
    expect(within(article).getByText('Spam', { selector: 'span' })).toBeTruthy();
    expect(await within(article).findByRole('list', { name: 'Deliveries' })).toBeTruthy();

    const list = within(screen.getByRole('list', { name: 'Submissions, newest first' }));
    const rows = list.getAllByRole('link');
    expect(rows[0]?.textContent).toContain('Content not stored');
    expect(rows[1]?.textContent).toContain('s1@example.com');

    // A submission of the same form that still has its content shows its fields.
    fireEvent.click(rows[1] as HTMLElement);
    const kept = within(await screen.findByRole('region', { name: 'Fields' }));
    expect(await kept.findByText('s1@example.com')).toBeTruthy();
    expect(kept.queryByText(CONTENT_NOT_STORED)).toBeNull();
  });

  it('a no-store form says so atop its submissions, and its export is disabled with the reason', async () => {
    const server = await api({ forms: [noStore()], submissions: [aSubmission('s1')] });
    openAs('/dashboard/forms/contact/submissions/s1', server.url);
    expect(await screen.findByText(NO_STORE_NOTICE, { exact: false })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Storage settings' }).getAttribute('href')).toBe(
      '/dashboard/forms/contact/settings',
    );
    const exportButton = screen.getByRole('button', { name: 'Export' }) as HTMLButtonElement;
    expect(exportButton.disabled).toBe(true);
    const reason = document.getElementById(exportButton.getAttribute('aria-describedby') ?? '');
    expect(reason?.textContent).toBe(NOTHING_TO_EXPORT);
    fireEvent.click(exportButton);
    fireEvent.keyDown(exportButton, { key: 'Enter' });
    expect(screen.queryByRole('menuitem', { name: 'JSON' })).toBeNull();
    expect(server.requests.some((r) => r.path.endsWith('/export'))).toBe(false);
  });

  it('says so above the empty state too; a form that stores submissions says nothing of it', async () => {
    const server = await api({ forms: [noStore(), aForm({ id: 'f2', slug: 'other' })], submissions: [] });
    openAs('/dashboard/forms/contact/submissions', server.url);
    expect(await screen.findByText(NO_SUBMISSIONS)).toBeTruthy();
    expect(screen.getByText(NO_STORE_NOTICE, { exact: false })).toBeTruthy();
    cleanup();

    server.state.submissions.push(aSubmission('s9', { formId: 'f2' }));
    openAs('/dashboard/forms/other/submissions/s9', server.url);
    expect(await screen.findByRole('article')).toBeTruthy();
    expect(screen.queryByText(NO_STORE_NOTICE, { exact: false })).toBeNull();
    expect((screen.getByRole('button', { name: 'Export' }) as HTMLButtonElement).disabled).toBe(false);
    expect(screen.queryByText(NOTHING_TO_EXPORT)).toBeNull();
  });

  it('shows the API’s refusal of an export, then why there is nothing to export', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s1')] });
    openAs('/dashboard/forms/contact/submissions/s1', server.url);
    const trigger = await screen.findByRole('button', { name: 'Export' });
    // Storage was turned off elsewhere since the page loaded.
    const stored = server.state.forms[0];
    if (stored) stored.settings = { ...stored.settings, storeContent: false };
    trigger.focus();
    fireEvent.keyDown(trigger, { key: 'Enter' });
    fireEvent.click(await screen.findByRole('menuitem', { name: 'CSV (spreadsheets)' }));
    expect(
      await screen.findByText('This form keeps no submission content, so there is nothing to export'),
    ).toBeTruthy();
    expect(server.requests.filter((r) => r.path.endsWith('/export'))).toHaveLength(1);
    expect(await screen.findByText(NOTHING_TO_EXPORT)).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Export' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(NO_STORE_NOTICE, { exact: false })).toBeTruthy();
  });
});

describe('overview chart', () => {
  it('fills the days without submissions with zeros, oldest first', () => {
    const days = fillDays([{ day: '2026-07-29', total: 3, spam: 1, blocked: 2 }], 3, '2026-07-30');
    expect(days).toEqual([
      { day: '2026-07-28', total: 0, spam: 0, blocked: 0 },
      { day: '2026-07-29', total: 3, spam: 1, blocked: 2 },
      { day: '2026-07-30', total: 0, spam: 0, blocked: 0 },
    ]);
    expect(fillDays([], 2, '2026-03-01').map((d) => d.day)).toEqual(['2026-02-28', '2026-03-01']);
  });

  it('draws 30 days with totals and spam apart, and lists them for screen readers', async () => {
    const server = await api({
      forms: [aForm({ submissionCount: 9, spamCount: 2 })],
      stats: [
        { day: '2026-07-30', total: 4, spam: 1 },
        { day: '2026-07-10', total: 5, spam: 1 },
      ],
    });
    openAs('/dashboard/forms/contact/overview', server.url);
    const table = await screen.findByRole('table', { name: /Submissions per day/ });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(30);
    // Day, submissions, spam, blocked (none blocked here).
    expect(rows[0]?.textContent).toBe('2026-07-01000');
    expect(rows[9]?.textContent).toBe('2026-07-10510');
    expect(rows[29]?.textContent).toBe('2026-07-30410');
    expect(screen.getByTestId('submissions-chart').querySelectorAll('g[data-day]')).toHaveLength(30);
    expect(screen.getByText('Last 30 days').nextElementSibling?.textContent).toBe('9');
  });
});

describe('delivery log', () => {
  it('lists every delivery of the submission as text, and resends one', async () => {
    const server = await api({
      forms: [aForm()],
      submissions: [aSubmission('s1')],
      deliveries: [
        aDelivery('d1'),
        aDelivery('d2', {
          target: '<img src=x onerror=alert(1)>@example.com',
          status: 'failed',
          attempts: 8,
          lastResponse: { code: '550', text: '<b>mailbox unavailable</b>' },
        }),
        aDelivery('d3', {
          channel: 'webhook',
          purpose: 'standard',
          target: 'https://hooks.example.com/in',
          status: 'retrying',
          nextAttemptAt: '2099-01-01T00:00:00.000Z',
        }),
      ],
    });
    const { container } = openAs('/dashboard/forms/contact/submissions/s1', server.url);
    const log = await screen.findByRole('list', { name: 'Deliveries' });
    expect(within(log).getAllByRole('listitem')).toHaveLength(3);
    expect(within(log).getByText('<img src=x onerror=alert(1)>@example.com')).toBeTruthy();
    expect(within(log).getByText('550 <b>mailbox unavailable</b>')).toBeTruthy();
    expect(within(log).getByText('Retrying')).toBeTruthy();
    expect(container.querySelector('img, b')).toBeNull();
    // Only a settled delivery can be resent.
    expect(within(log).getAllByRole('button', { name: /^Resend/ })).toHaveLength(2);

    fireEvent.click(within(log).getByRole('button', { name: 'Resend the notification email to team@example.com' }));
    await waitFor(() => expect(within(log).getAllByRole('listitem')).toHaveLength(4));
    const resend = server.requests.find((r) => r.method === 'POST' && r.path.endsWith('/deliveries/d1/resend'));
    expect(resend?.body).toEqual({});
    expect(within(log).getByText('d1')).toBeTruthy();
  });

  it('says why nothing was delivered, and hides resend and replay from members', async () => {
    const server = await api({ forms: [aForm()], submissions: [aSubmission('s1', { spam: true })] });
    openAs('/dashboard/forms/contact/submissions/s1', server.url, 'member');
    expect(await screen.findByText('Spam is never notified.')).toBeTruthy();
    expect(screen.queryByText('Replay this form’s failed deliveries')).toBeNull();
  });

  it('replays the form’s failed deliveries in a time range', async () => {
    const server = await api({
      forms: [aForm()],
      submissions: [aSubmission('s1')],
      deliveries: [aDelivery('d1', { status: 'failed' })],
    });
    openAs('/dashboard/forms/contact/submissions/s1', server.url);
    fireEvent.click(await screen.findByText('Replay this form’s failed deliveries'));
    fireEvent.change(screen.getByLabelText('Received from'), { target: { value: '2026-07-01T00:00' } });
    fireEvent.change(screen.getByLabelText('Received until'), { target: { value: '2026-07-03T00:00' } });
    fireEvent.click(screen.getByRole('button', { name: 'Replay failed' }));
    await waitFor(() => expect(server.requests.some((r) => r.path.endsWith('/deliveries/replay'))).toBe(true));
    const replay = server.requests.find((r) => r.path.endsWith('/deliveries/replay'));
    expect(replay?.body).toEqual({
      from: new Date('2026-07-01T00:00').toISOString(),
      to: new Date('2026-07-03T00:00').toISOString(),
      status: 'failed',
    });
    expect(await screen.findByText('Replaying 1 delivery')).toBeTruthy();
  });
});
