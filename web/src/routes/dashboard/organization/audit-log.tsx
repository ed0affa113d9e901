export { AuditLogScreen as Component } from '../../../features/audit-log/audit-log.tsx';
