import { useParams } from 'react-router';
import { Placeholder } from './placeholder.tsx';

export function Component() {
  const { email = '' } = useParams();
  return <Placeholder title="Email verified">{email} can now receive this organization's notifications.</Placeholder>;
}
