export { FormLayout as Component } from '../../../../features/forms/form-layout.tsx';
