import type { CSSProperties } from 'react';
import { Toaster } from 'sonner';

/**
 * The product's toasts (spec §9): bottom-center, following the system theme, 4 s, at most 3 visible, 356 px wide,
 * 14 px apart, 24 px from the edge on desktop and 16 px on mobile. Swipe threshold (45 px) and removal animation
 * (200 ms) are sonner's own constants.
 */
export const TOASTER_PROPS = {
  position: 'bottom-center',
  theme: 'system',
  duration: 4000,
  visibleToasts: 3,
  gap: 14,
  offset: 24,
  mobileOffset: 16,
  style: { '--width': '356px' } as CSSProperties,
} as const;

export function AppToaster() {
  return <Toaster {...TOASTER_PROPS} />;
}
