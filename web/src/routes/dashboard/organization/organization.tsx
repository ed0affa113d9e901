export { OrganizationScreen as Component } from '../../../features/organization/organization.tsx';
