export { AcceptInvitationScreen as Component } from '../../features/session/accept-invitation.tsx';
