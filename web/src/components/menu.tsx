import { DropdownMenu } from 'radix-ui';
import type { ReactNode } from 'react';
import { cx } from './ui.tsx';

/** A menu item's look (Radix marks the one under the pointer or the keyboard `data-highlighted`). */
export const MENU_ITEM =
  'cursor-pointer rounded px-3 py-2 text-sm outline-none data-highlighted:bg-zinc-100 dark:data-highlighted:bg-zinc-800';

/** A dropdown menu's popup, portalled (Radix: arrow keys, typeahead, Escape closes); `className` sets its width. */
export function MenuPopup(props: {
  side?: 'top' | 'bottom';
  align: 'start' | 'end';
  className: string;
  children: ReactNode;
}) {
  return (
    <DropdownMenu.Portal>
      <DropdownMenu.Content
        side={props.side}
        align={props.align}
        sideOffset={6}
        className={cx(
          'z-50 rounded-md border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-800 dark:bg-zinc-900',
          props.className,
        )}
      >
        {props.children}
      </DropdownMenu.Content>
    </DropdownMenu.Portal>
  );
}
