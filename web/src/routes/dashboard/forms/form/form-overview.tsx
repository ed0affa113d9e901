export { FormOverviewScreen as Component } from '../../../../features/forms/form-overview.tsx';
