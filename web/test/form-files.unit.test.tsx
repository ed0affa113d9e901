import { DEFAULT_FORM_FILES, type FormFiles } from '@formgate/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_MB_ERROR } from '../src/features/forms/form-files-panel.tsx';
import { aForm, startFormsApi } from './forms-api.ts';
import { allowSlowScreens, closeAfterEach, openAs } from './screen-test.ts';

allowSlowScreens();

const closing = closeAfterEach();

async function openSettings(files: FormFiles = DEFAULT_FORM_FILES, role = 'owner') {
  const server = closing(await startFormsApi({ forms: [aForm({ settings: { ...aForm().settings, files } })] }));
  openAs('/dashboard/forms/contact/settings', server.url, role);
  const panel = within(await screen.findByRole('region', { name: 'File uploads' }));
  const maxFileMb = panel.getByLabelText('Largest file (MB)') as HTMLInputElement;
  const allowedTypes = panel.getByLabelText('Allowed file types') as HTMLTextAreaElement;
  const save = () => fireEvent.click(panel.getByRole('button', { name: 'Save file uploads' }));
  const patches = () => server.requests.filter((r) => r.method === 'PATCH');
  return { server, panel, maxFileMb, allowedTypes, save, patches };
}

describe('form settings: file uploads', () => {
  it('shows the plan limit and any type as empty fields, with their hints', async () => {
    const { panel, maxFileMb, allowedTypes } = await openSettings();
    expect(maxFileMb.value).toBe('');
    expect(maxFileMb.placeholder).toBe('Plan limit');
    expect(allowedTypes.value).toBe('');
    expect(panel.getByText('Empty: any type. Examples: application/pdf, image/*')).toBeTruthy();
    // Each hint is tied to its field.
    const hint = document.getElementById(allowedTypes.getAttribute('aria-describedby') ?? '');
    expect(hint?.textContent).toBe('Empty: any type. Examples: application/pdf, image/*');
  });

  it('shows the form’s current values', async () => {
    const { maxFileMb, allowedTypes } = await openSettings({
      maxFileMb: 10,
      allowedTypes: ['application/pdf', 'image/*'],
    });
    expect(maxFileMb.value).toBe('10');
    expect(allowedTypes.value).toBe('application/pdf, image/*');
  });

  it('saves the largest file and the types, whole, as the API expects them', async () => {
    const { server, maxFileMb, allowedTypes, save, patches } = await openSettings();
    fireEvent.change(maxFileMb, { target: { value: '25' } });
    fireEvent.change(allowedTypes, { target: { value: 'application/pdf, image/*' } });
    save();
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]?.path).toBe('/api/v1/forms/f1');
    expect(patches()[0]?.body).toEqual({
      settings: { files: { maxFileMb: 25, allowedTypes: ['application/pdf', 'image/*'] } },
    });
    expect(await screen.findByText('File upload settings saved')).toBeTruthy();
    expect(server.state.forms[0]?.settings.files).toEqual({
      maxFileMb: 25,
      allowedTypes: ['application/pdf', 'image/*'],
    });
  });

  it('takes types a line each, trimmed and lowercased, and empty fields back to the plan limit and any type', async () => {
    const { panel, maxFileMb, allowedTypes, save, patches } = await openSettings({
      maxFileMb: 10,
      allowedTypes: ['application/pdf'],
    });
    fireEvent.change(allowedTypes, { target: { value: ' Image/PNG \n\ntext/csv,\nimage/png' } });
    save();
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]?.body).toEqual({
      settings: { files: { maxFileMb: 10, allowedTypes: ['image/png', 'text/csv'] } },
    });
    // The saved form, asked again after the save, shows what it keeps.
    await waitFor(() => expect(allowedTypes.value).toBe('image/png, text/csv'));
    await panel.findByRole('button', { name: 'Save file uploads' });

    fireEvent.change(maxFileMb, { target: { value: '' } });
    fireEvent.change(allowedTypes, { target: { value: '' } });
    save();
    await waitFor(() => expect(patches()).toHaveLength(2));
    expect(patches()[1]?.body).toEqual({ settings: { files: { maxFileMb: null, allowedTypes: [] } } });
  });

  it('refuses a type that is not a MIME type, naming it, and sends nothing', async () => {
    const { panel, allowedTypes, save, patches } = await openSettings();
    fireEvent.change(allowedTypes, { target: { value: 'application/pdf, .pdf, image/*' } });
    save();
    const error = await panel.findByRole('alert');
    expect(error.textContent).toContain('“.pdf” is not a file type');
    expect(allowedTypes.getAttribute('aria-invalid')).toBe('true');
    expect(allowedTypes.getAttribute('aria-describedby')).toBe(error.id);
    expect(patches()).toHaveLength(0);

    fireEvent.change(allowedTypes, { target: { value: '<b>pdf</b>' } });
    save();
    await waitFor(() => expect(panel.getByRole('alert').textContent).toContain('“<b>pdf</b>” is not a file type'));
    expect(panel.getByRole('alert').querySelector('b')).toBeNull();
    expect(patches()).toHaveLength(0);
  });

  it('refuses more than 50 types', async () => {
    const { panel, allowedTypes, save, patches } = await openSettings();
    const types = Array.from({ length: 51 }, (_, i) => `application/x-type${i}`).join('\n');
    fireEvent.change(allowedTypes, { target: { value: types } });
    save();
    expect(await panel.findByText('At most 50 file types (51 given)')).toBeTruthy();
    expect(patches()).toHaveLength(0);
  });

  it.each(['0', '101', '2.5'])('refuses %s MB', async (value) => {
    const { panel, maxFileMb, save, patches } = await openSettings();
    fireEvent.change(maxFileMb, { target: { value } });
    save();
    expect(await panel.findByText(MAX_FILE_MB_ERROR)).toBeTruthy();
    expect(MAX_FILE_MB_ERROR).toBe('A whole number of MB from 1 to 100, or empty for the plan limit');
    expect(maxFileMb.getAttribute('aria-invalid')).toBe('true');
    expect(patches()).toHaveLength(0);
  });

  it('is read-only for a member', async () => {
    const { panel, maxFileMb, allowedTypes } = await openSettings(DEFAULT_FORM_FILES, 'member');
    expect(maxFileMb.matches(':disabled')).toBe(true);
    expect(allowedTypes.matches(':disabled')).toBe(true);
    expect(panel.getByRole('button', { name: 'Save file uploads' }).matches(':disabled')).toBe(true);
  });
});
