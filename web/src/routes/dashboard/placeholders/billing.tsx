import { Placeholder } from './placeholder.tsx';

export function Component() {
  return <Placeholder title="Billing" />;
}
