import { z } from 'zod';
import { emailAddress } from './email-address.ts';
import { MAX_SUBMISSION_FILE_BYTES } from './ingest.ts';
import { RETENTION_DAYS_MAX } from './plans.ts';
import { SpamReasonListSchema, SpamSettingsPatchSchema } from './spam.ts';
import { trimmedText } from './text.ts';

/**
 * Who is told about a form's submissions by email (issue 12). `emails` are notification addresses of the
 * organization (`/api/v1/notification-emails`); only verified ones ever receive mail. `subject` is a template:
 * `{{form}}` becomes the form's name and `{{subject}}` the submission's `_subject`; null → "New submission to {{form}}".
 * The autoresponse goes to the submitter's valid `_replyto`/`email` address, never for spam.
 */
export const FormNotificationsSchema = z.object({
  enabled: z.boolean(),
  emails: z.array(emailAddress()).max(20),
  subject: trimmedText(200).nullable(),
  autoresponse: z.object({ enabled: z.boolean(), text: z.string().max(5_000) }),
});
export type FormNotifications = z.infer<typeof FormNotificationsSchema>;

export const DEFAULT_FORM_NOTIFICATIONS: FormNotifications = {
  enabled: true,
  emails: [],
  subject: null,
  autoresponse: { enabled: false, text: '' },
};

/** `application/pdf`, or a whole top-level type as `image/*`. */
const FileTypePatternSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}\/(\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126})$/,
    'a MIME type such as application/pdf, or image/* for every image type',
  )
  .toLowerCase();

/**
 * What files a form takes (issue 33), within the plan's `maxFileMb` and the deployment's limits: the largest file in
 * MiB (null: the plan's limit) and the types allowed (empty: any). A file's type is the one it was sent as, checked
 * against its first bytes.
 */
export const FormFilesSchema = z.object({
  maxFileMb: z
    .number()
    .int()
    .min(1)
    .max(MAX_SUBMISSION_FILE_BYTES / (1024 * 1024))
    .nullable(),
  allowedTypes: z.array(FileTypePatternSchema).max(50),
});
export type FormFiles = z.infer<typeof FormFilesSchema>;
export const DEFAULT_FORM_FILES: FormFiles = { maxFileMb: null, allowedTypes: [] };

const formSettingsFields = {
  /** Where an HTML form is sent after a successful submission; null → Formgate's thank-you page. */
  redirectUrl: z.url({ protocol: /^https?$/ }).nullable(),
  /** Origins (scheme://host[:port]) allowed as `_next` targets and, later, as submitting origins. */
  allowedOrigins: z.array(z.string().min(1).max(200)).max(50),
  /** A form-specific honeypot field name, in addition to the reserved ones. */
  honeypotField: z.string().min(1).max(100).nullable(),
  enabled: z.boolean(),
  /**
   * Days a submission is kept (issue 31); older ones are deleted with everything derived from them. `null`: the
   * organization's default (`GET /api/v1/retention`); the plan's maximum caps either.
   */
  retentionDays: z.number().int().min(1).max(RETENTION_DAYS_MAX).nullable(),
  /**
   * false: a no-store form (issue 31). Its submissions are delivered (email, webhooks), then only their metadata is
   * kept (id, time, spam verdict, delivery outcomes) once every delivery succeeded or failed for good; nothing is
   * exported. Held submissions keep their content until released and delivered, or deleted.
   */
  storeContent: z.boolean(),
  /** The files it takes (issue 33). */
  files: FormFilesSchema,
};

export const FormSettingsSchema = z.object({
  ...formSettingsFields,
  retentionDays: formSettingsFields.retentionDays.default(null),
  storeContent: formSettingsFields.storeContent.default(true),
  files: FormFilesSchema.default(DEFAULT_FORM_FILES),
  /** Absent on forms (and `forms.form` records) from before notifications: the defaults apply. */
  notifications: FormNotificationsSchema.default(DEFAULT_FORM_NOTIFICATIONS),
  /**
   * The form's own spam settings (issue 14): keys absent (or null altogether) fall back to the organization's
   * defaults, then the built-in ones (`resolveSpamSettings`).
   */
  spam: SpamSettingsPatchSchema.nullable().default(null),
});
/**
 * Settings as a create or PATCH request gives them: every key optional and never defaulted (an absent key keeps
 * the current value); `notifications` is merged key by key too.
 */
export const FormSettingsPatchSchema = z
  .object({
    ...formSettingsFields,
    notifications: FormNotificationsSchema.partial(),
    spam: SpamSettingsPatchSchema.nullable(),
  })
  .partial();
export type FormSettingsPatch = z.infer<typeof FormSettingsPatchSchema>;
export type FormSettings = z.infer<typeof FormSettingsSchema>;

export const FormSchema = z.object({
  id: z.string(),
  orgId: z.string(),
  name: z.string().min(1).max(200),
  slug: z.string(),
  /** The public key in `/f/{key}`. */
  key: z.string(),
  settings: FormSettingsSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Increments on every change; views keep the highest version they have seen. */
  version: z.number().int().positive(),
});
export type Form = z.infer<typeof FormSchema>;

export const DEFAULT_FORM_SETTINGS: FormSettings = {
  redirectUrl: null,
  allowedOrigins: [],
  honeypotField: null,
  enabled: true,
  retentionDays: null,
  storeContent: true,
  files: DEFAULT_FORM_FILES,
  notifications: DEFAULT_FORM_NOTIFICATIONS,
  spam: null,
};

/** A form as stored before a setting existed, with that setting's default (reads of old records). */
export function withDefaultSettings(form: Form): Form {
  const { notifications, files } = form.settings as Partial<FormSettings>;
  if (notifications && files) return form;
  return {
    ...form,
    settings: {
      ...form.settings,
      notifications: notifications ?? DEFAULT_FORM_NOTIFICATIONS,
      files: files ?? DEFAULT_FORM_FILES,
    },
  };
}

export const SubmissionFieldSchema = z.object({ name: z.string(), value: z.string() });
export type SubmissionField = z.infer<typeof SubmissionFieldSchema>;

export const SubmissionFileSchema = z.object({
  field: z.string(),
  /** Key in the blob store; random, never derived from the client's file name. */
  blobKey: z.string(),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int().nonnegative(),
});
export type SubmissionFile = z.infer<typeof SubmissionFileSchema>;

/**
 * A file's malware scan (issue 33), when the forms service scans files (`CLAMAV_ADDRESS`): `pending` until the
 * scanner has read it, then `clean`, `infected` (quarantined: never downloadable; `signature` names what was found)
 * or `failed` (the scanner refused the file, for example over its size limit: never downloadable either).
 */
export const FileScanSchema = z.object({
  status: z.enum(['pending', 'clean', 'infected', 'failed']),
  /** `infected`: the scanner's name for what it found; `failed`: why the scan failed. */
  detail: z.string().optional(),
  /** When the verdict was reached (absent while pending). */
  scannedAt: z.string().optional(),
});
export type FileScan = z.infer<typeof FileScanSchema>;

/** A stored file as the API lists it: `scan` null when it was received while files were not scanned. */
export const SubmissionFileDtoSchema = SubmissionFileSchema.extend({ scan: FileScanSchema.nullable() });
export type SubmissionFileDto = z.infer<typeof SubmissionFileDtoSchema>;

/**
 * Ingest's verdict: spam or not, and every reason (issue 14: `{layer, rule, detail, shadow?}`; strings in events
 * from before are read as honeypot reasons). Shadow reasons never make `isSpam`.
 */
export const SpamVerdictSchema = z.object({
  isSpam: z.boolean(),
  reasons: SpamReasonListSchema,
});
export type SpamVerdict = z.infer<typeof SpamVerdictSchema>;
