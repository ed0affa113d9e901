export { FormCreateScreen as Component } from '../../../features/forms/form-create.tsx';
