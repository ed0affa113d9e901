import { toast } from 'sonner';
import { Button } from './ui.tsx';

/** Copies `text` to the clipboard; `label` names what is copied for screen readers ("Copy endpoint"). */
export function CopyButton({ text, label, className }: { text: string; label: string; className?: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success('Copied to the clipboard');
    } catch {
      toast.error('Could not copy; select the text and copy it yourself.');
    }
  };
  return (
    <Button variant="secondary" aria-label={label} onClick={copy} className={className ?? 'px-2.5 py-1 text-xs'}>
      Copy
    </Button>
  );
}
