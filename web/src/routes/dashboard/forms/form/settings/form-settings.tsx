export { FormSettingsScreen as Component } from '../../../../../features/forms/form-settings.tsx';
