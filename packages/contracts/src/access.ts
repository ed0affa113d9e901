import { createAccessControl } from 'better-auth/plugins/access';

/**
 * The organization access model of the spec (§6), plus Formgate's own resources. One definition, used by
 * better-auth's organization plugin in the gateway and by every service's permission checks, so a denial reads
 * the same everywhere: "You are not allowed to access resource: {resource}", "unauthorized to access resource
 * \"{resource}\"" or "Not authorized".
 */
export const ACCESS_STATEMENTS = {
  organization: ['update', 'delete'],
  member: ['create', 'update', 'delete'],
  invitation: ['create', 'cancel'],
  team: ['create', 'update', 'delete'],
  /** Formgate: forms and their settings. Reading needs only membership. */
  form: ['create', 'update', 'delete'],
  /** Formgate: organization API keys (better-auth's api-key plugin asks for these). */
  apiKey: ['create', 'read', 'update', 'delete'],
  /** Formgate: erasure by submitter (issue 31) and its receipts. */
  erasure: ['create', 'read'],
} as const;

export const accessControl = createAccessControl(ACCESS_STATEMENTS);

const all = {
  member: [...ACCESS_STATEMENTS.member],
  invitation: [...ACCESS_STATEMENTS.invitation],
  team: [...ACCESS_STATEMENTS.team],
  form: [...ACCESS_STATEMENTS.form],
  apiKey: [...ACCESS_STATEMENTS.apiKey],
  erasure: [...ACCESS_STATEMENTS.erasure],
};

/** owner: everything; admin: everything but deleting the organization; member: nothing. */
export const ORG_ROLES = {
  owner: accessControl.newRole({ organization: ['update', 'delete'], ...all }),
  admin: accessControl.newRole({ organization: ['update'], ...all }),
  member: accessControl.newRole({}),
};

export type OrgRoleName = keyof typeof ORG_ROLES;
export type PermissionRequest = { [R in keyof typeof ACCESS_STATEMENTS]?: (typeof ACCESS_STATEMENTS)[R][number][] };

/**
 * Whether any of `roles` (a member's role may hold several, comma-separated) grants every action requested.
 * On denial `error` is the message of the first role's refusal, as better-auth words it.
 */
export function authorize(roles: readonly string[], request: PermissionRequest): { success: boolean; error?: string } {
  let firstError: string | undefined;
  for (const name of roles.flatMap((r) => r.split(',')).map((r) => r.trim())) {
    const role = ORG_ROLES[name as OrgRoleName];
    const result = role ? role.authorize(request) : { success: false, error: 'Not authorized' };
    if (result.success) return { success: true };
    firstError ??= result.error;
  }
  return { success: false, error: firstError ?? 'Not authorized' };
}
