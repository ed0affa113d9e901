import { useForm } from '../form-layout.tsx';
import { Placeholder } from './placeholder.tsx';

export function Component() {
  return <Placeholder title={`${useForm().name}: settings`} />;
}
