export { OrganizationLayout as Component } from '../../../features/organization/organization-layout.tsx';
