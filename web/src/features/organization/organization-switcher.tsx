import { useQuery } from '@tanstack/react-query';
import { DropdownMenu } from 'radix-ui';
import { useNavigate } from 'react-router';
import { MENU_ITEM, MenuPopup } from '../../components/menu.tsx';
import { cx } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import { organizationListQuery } from '../session/session.queries.ts';
import { useSetActiveOrganization } from './organization.mutations.ts';

/** The active organization, and a menu to switch to another one the user belongs to. */
export function OrganizationSwitcher({ activeOrganizationId }: { activeOrganizationId: string | null }) {
  const services = useServices();
  const navigate = useNavigate();
  const organizations = useQuery(organizationListQuery(services));
  const setActive = useSetActiveOrganization({ onSuccess: () => navigate('/dashboard/forms') });
  const active = organizations.data?.find((o) => o.id === activeOrganizationId);
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        aria-label={`Organization: ${active?.name ?? 'none'}. Switch organization`}
        className="flex w-full items-center justify-between gap-2 rounded-md border border-zinc-200 bg-white px-3 py-2 text-left text-sm font-semibold dark:border-zinc-800 dark:bg-zinc-950"
      >
        <span className="truncate">{active?.name ?? 'Organization'}</span>
        <span aria-hidden="true">▾</span>
      </DropdownMenu.Trigger>
      <MenuPopup align="start" className="min-w-56">
        <DropdownMenu.Label className="px-3 py-1.5 text-xs text-zinc-600 dark:text-zinc-400">
          Organizations
        </DropdownMenu.Label>
        <DropdownMenu.RadioGroup
          value={activeOrganizationId ?? ''}
          onValueChange={(id) => id !== activeOrganizationId && setActive.mutate(id)}
        >
          {(organizations.data ?? []).map((org) => (
            <DropdownMenu.RadioItem
              key={org.id}
              value={org.id}
              className={cx(MENU_ITEM, 'flex items-center justify-between gap-3')}
            >
              <span className="truncate">{org.name}</span>
              <DropdownMenu.ItemIndicator aria-hidden="true">✓</DropdownMenu.ItemIndicator>
            </DropdownMenu.RadioItem>
          ))}
        </DropdownMenu.RadioGroup>
      </MenuPopup>
    </DropdownMenu.Root>
  );
}
