import { formatDateTime } from '../../components/panel.tsx';
import { Button } from '../../components/ui.tsx';
import { formatBytes } from '../../lib/format.ts';
import { saveFile } from '../../lib/save-file.ts';
import { safeLink } from '../submissions/submissions.queries.ts';
import { submissionsCount } from './erasure-receipt.tsx';
import { type SubjectAccessDto, subjectAccessFile } from './privacy.queries.ts';

/** An export as answered, with the address it was asked for. */
export interface SubjectAccessExport {
  dto: SubjectAccessDto;
  email: string;
}

type Submission = SubjectAccessDto['submissions'][number];
type FileEntry = Submission['files'][number] & { formName: string; key: string };

/** The distinct names of the forms the submissions belong to, in the order they first appear. */
const formNames = (submissions: Submission[]) => [...new Map(submissions.map((s) => [s.formId, s.formName])).values()];

const filesOf = (submissions: Submission[]): FileEntry[] =>
  submissions.flatMap((s) => s.files.map((f, i) => ({ ...f, formName: s.formName, key: `${s.id}:${i}` })));

/**
 * What an export found: the count, the forms, "Download JSON" (the whole answer as received) and each file with its
 * link. Every value is the submitters' text: it is rendered as text, and a link only when it is http(s).
 */
export function SubjectAccessView({ exported }: { exported: SubjectAccessExport }) {
  const { dto, email } = exported;
  const forms = formNames(dto.submissions);
  const files = filesOf(dto.submissions);
  const download = () => {
    const file = subjectAccessFile(dto);
    saveFile(file.blob, file.name);
  };
  return (
    <section
      aria-label="Data export"
      className="flex min-w-0 flex-col gap-3 rounded-md border border-zinc-200 bg-zinc-50 p-4 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[max-content_1fr]">
        <dt className="font-medium">Address</dt>
        <dd className="break-all">{email}</dd>
        <dt className="font-medium">Generated at</dt>
        <dd>{formatDateTime(dto.generatedAt)}</dd>
        <dt className="font-medium">Submissions</dt>
        <dd>{submissionsCount(dto.submissions.length)}</dd>
        <dt className="font-medium">Forms</dt>
        <dd className="break-words">{forms.length === 0 ? 'None' : forms.join(', ')}</dd>
      </dl>
      <div>
        <Button variant="secondary" onClick={download}>
          Download JSON
        </Button>
      </div>
      {files.length > 0 ? <FileLinks files={files} /> : null}
    </section>
  );
}

function FileLinks({ files }: { files: FileEntry[] }) {
  return (
    <div className="flex flex-col gap-2">
      <h3 className="font-semibold">Files</h3>
      <p className="text-zinc-600 dark:text-zinc-400">
        The links below expire at the time shown next to each; the JSON holds the same links. Export again for fresh
        ones.
      </p>
      <ul aria-label="Exported files" className="flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
        {files.map((f) => (
          <FileItem key={f.key} file={f} />
        ))}
      </ul>
    </div>
  );
}

function FileItem({ file }: { file: FileEntry }) {
  const href = file.url ? safeLink(file.url) : null;
  return (
    <li className="flex flex-col gap-0.5 py-2">
      {href ? (
        <a
          href={href}
          target="_blank"
          rel="noopener noreferrer"
          className="font-medium break-all text-brand-600 underline dark:text-brand-50"
        >
          {file.filename}
        </a>
      ) : (
        <span className="font-medium break-all">{file.filename}</span>
      )}
      <span className="break-words text-zinc-600 dark:text-zinc-400">
        {file.formName} · {file.field} · {formatBytes(file.size)} ·{' '}
        {href ? `Link expires ${formatDateTime(file.expiresAt)}` : 'No download link'}
      </span>
    </li>
  );
}
