import { DropdownMenu } from 'radix-ui';
import { useLocation, useNavigate } from 'react-router';
import { MENU_ITEM, MenuPopup } from '../../components/menu.tsx';
import { useSignOut } from './session.mutations.ts';

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
      <MenuPopup side="top" align="start" className="min-w-48">
        <DropdownMenu.Item onSelect={() => navigate('/dashboard/profile')} className={MENU_ITEM}>
          My profile
        </DropdownMenu.Item>
        <DropdownMenu.Item disabled={signOut.isPending} onSelect={() => signOut.mutate()} className={MENU_ITEM}>
          Sign out
        </DropdownMenu.Item>
      </MenuPopup>
    </DropdownMenu.Root>
  );
}
