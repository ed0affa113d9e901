import { Placeholder } from './placeholder.tsx';

export function Component() {
  return <Placeholder title="New form" />;
}
