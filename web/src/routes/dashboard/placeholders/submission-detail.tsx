import { useParams } from 'react-router';
import { useForm } from '../form-layout.tsx';
import { Placeholder } from './placeholder.tsx';

export function Component() {
  const { submissionId } = useParams();
  return <Placeholder title={`${useForm().name}: submission ${submissionId}`} />;
}
