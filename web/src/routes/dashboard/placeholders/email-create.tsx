import { Placeholder } from './placeholder.tsx';

export function Component() {
  return <Placeholder title="Add an email address" />;
}
