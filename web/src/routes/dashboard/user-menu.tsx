import { DropdownMenu } from 'radix-ui';
import { useLocation, useNavigate } from 'react-router';
import { useSignOut } from '../../features/session/session.mutations.ts';

/** Avatar (the email's first letter), the email in the sidebar variant, "My profile" and "Sign out". */
export function UserMenu({ email, variant }: { email: string; variant: 'sidebar' | 'compact' }) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const signOut = useSignOut({ onSuccess: () => navigate(`/login?redirect=${encodeURIComponent(pathname)}`) });
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        aria-label={`Account menu for ${email}`}
        className="flex w-full items-center gap-2 rounded-md px-2 py-2 text-left text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800"
      >
        <span
          aria-hidden="true"
          className="flex size-8 shrink-0 items-center justify-center rounded-full bg-brand-600 font-semibold text-white uppercase"
        >
          {email.charAt(0)}
        </span>
        {variant === 'sidebar' ? <span className="truncate">{email}</span> : null}
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          side="top"
          align="start"
          sideOffset={6}
          className="z-50 min-w-48 rounded-md border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-800 dark:bg-zinc-900"
        >
          <DropdownMenu.Item
            onSelect={() => navigate('/dashboard/profile')}
            className="cursor-pointer rounded px-3 py-2 text-sm outline-none data-highlighted:bg-zinc-100 dark:data-highlighted:bg-zinc-800"
          >
            My profile
          </DropdownMenu.Item>
          <DropdownMenu.Item
            disabled={signOut.isPending}
            onSelect={() => signOut.mutate()}
            className="cursor-pointer rounded px-3 py-2 text-sm outline-none data-highlighted:bg-zinc-100 dark:data-highlighted:bg-zinc-800"
          >
            Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
