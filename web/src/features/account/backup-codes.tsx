import { CopyButton } from '../../components/copy-button.tsx';
import { Button } from '../../components/ui.tsx';
import { saveFile } from '../../lib/save-file.ts';

/** Backup codes shown once, to copy or download as a text file, with what they are for. */
export function BackupCodes({ codes, email }: { codes: string[]; email: string }) {
  const download = () => {
    const text = `Formgate backup codes for ${email}\nEach code works once.\n\n${codes.join('\n')}\n`;
    saveFile(new Blob([text], { type: 'text/plain' }), 'formgate-backup-codes.txt');
  };
  return (
    <div className="flex flex-col gap-3 rounded-md border border-amber-400 bg-amber-50 p-4 text-sm dark:border-amber-700 dark:bg-amber-950">
      <p className="font-semibold text-amber-900 dark:text-amber-100">
        If you lose your phone, sign in with one of these codes instead. Each works once; keep them somewhere safe. They
        are shown only now.
      </p>
      <ul aria-label="Backup codes" className="grid grid-cols-2 gap-x-6 gap-y-1 font-mono sm:grid-cols-3">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <CopyButton text={codes.join('\n')} label="Copy backup codes" className="px-3 py-1.5 text-sm" />
        <Button variant="secondary" className="px-3 py-1.5" onClick={download}>
          Download as text
        </Button>
      </div>
    </div>
  );
}
