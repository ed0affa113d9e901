import { pipeline } from 'node:stream/promises';
import type { FileLinkDto, FileScan } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, type Clock, identityOf, type Logger, mountRoute } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import { Router } from 'express';
import { attachmentDisposition, type FileLinks, servedContentType } from '../files/file-links.ts';
import type { FormRepository } from '../store/form-repository.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';

export interface FileLinkDeps {
  forms: Pick<FormRepository, 'getForm'>;
  submissions: Pick<SubmissionReadModel, 'getSubmission'>;
  clock: Clock;
  logger: Logger;
  /** Files are scanned for malware (issue 33): one still `pending` is not served yet. */
  scanning: boolean;
  /** Absent: the service was built without file access, and both routes answer 404. */
  files?: { blobs: BlobStore; links: FileLinks };
}

/**
 * Throws unless the file may be served: never when the malware scan quarantined it (`infected`, `failed`), and not
 * yet while its scan is `pending` (unless files are no longer scanned). A file with no scan was received while files
 * were not scanned.
 */
export function checkScanned(scan: FileScan | undefined, scanning: boolean) {
  if (scan?.status === 'infected' || scan?.status === 'failed') throw new AppError('FORMS_FILE_QUARANTINED');
  if (scan?.status === 'pending' && scanning) throw new AppError('FORMS_FILE_SCAN_PENDING');
}

/**
 * `GET /api/v1/forms/:formId/submissions/:submissionId/files/:fileId/link` (any member): a link to one file of a
 * submission, valid `FILE_LINK_TTL_SECONDS`. `fileId` is the file's `blobKey` as listed in the submission.
 */
export function fileLinkRoutes(deps: FileLinkDeps) {
  const router = Router();
  mountRoute(router, API_ROUTES.getFileLink, async (req, res) => {
    const scope = { orgId: identityOf(req).orgId };
    const formId = String(req.params.formId);
    const form = await deps.forms.getForm(scope, formId);
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    const submission = await deps.submissions.getSubmission(scope, form.id, String(req.params.submissionId));
    if (!submission) throw new AppError('FORMS_SUBMISSION_NOT_FOUND');
    const file = submission.files.find((f) => f.blobKey === req.params.fileId);
    if (!file || !deps.files) throw new AppError('FORMS_FILE_NOT_FOUND');
    checkScanned(submission.fileScans?.[file.blobKey], deps.scanning);
    const { token, expiresAt } = deps.files.links.sign(
      { orgId: scope.orgId, formId: form.id, submissionId: submission.id, blobKey: file.blobKey },
      deps.clock.now().getTime(),
    );
    res.setHeader('cache-control', 'private, no-store');
    const body: FileLinkDto = { url: `/api/v1/files/${token}`, expiresAt };
    res.json(body);
  });
  return router;
}

/**
 * `GET /api/v1/files/:token` (public: the token is the credential). 403 `FORMS_FILE_LINK_INVALID` for a token that
 * is forged, altered or expired; 404 `FORMS_FILE_NOT_FOUND` when its submission or file is gone. The file is always
 * an attachment, never rendered as a page of this origin.
 */
export function fileDownloadRoutes(deps: FileLinkDeps) {
  const router = Router();
  mountRoute(router, API_ROUTES.downloadFile, async (req, res) => {
    if (!deps.files) throw new AppError('FORMS_FILE_NOT_FOUND');
    const grant = deps.files.links.verify(String(req.params.token), deps.clock.now().getTime());
    if (!grant) throw new AppError('FORMS_FILE_LINK_INVALID');
    const submission = await deps.submissions.getSubmission({ orgId: grant.orgId }, grant.formId, grant.submissionId);
    const file = submission?.files.find((f) => f.blobKey === grant.blobKey);
    if (file) checkScanned(submission?.fileScans?.[file.blobKey], deps.scanning);
    const blob = file ? await deps.files.blobs.get(file.blobKey) : null;
    if (!file || !blob) throw new AppError('FORMS_FILE_NOT_FOUND');
    res.status(200);
    res.setHeader('content-type', servedContentType(file.contentType));
    res.setHeader('content-disposition', attachmentDisposition(file.filename));
    res.setHeader('content-length', String(blob.size));
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('cache-control', 'private, no-store');
    res.setHeader('content-security-policy', "default-src 'none'; sandbox");
    res.setHeader('referrer-policy', 'no-referrer');
    try {
      await pipeline(blob.stream, res);
    } catch (err) {
      deps.logger.warn({ formId: grant.formId, err: (err as Error).name }, 'file download cut short');
      res.destroy();
    }
  });
  return router;
}
