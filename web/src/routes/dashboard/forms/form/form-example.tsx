export { FormExampleScreen as Component } from '../../../../features/forms/form-example.tsx';
