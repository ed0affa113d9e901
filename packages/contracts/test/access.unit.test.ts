import { describe, expect, it } from 'vitest';
import { authorize } from '../src/access.ts';

describe('the access model of spec §6', () => {
  it('owner may do everything, admin all but deleting the organization, member nothing', () => {
    expect(authorize(['owner'], { organization: ['update', 'delete'], member: ['create'], team: ['delete'] })).toEqual({
      success: true,
    });
    expect(
      authorize(['admin'], { organization: ['update'], invitation: ['create', 'cancel'], team: ['create'] }),
    ).toEqual({ success: true });
    expect(authorize(['admin'], { organization: ['delete'] }).success).toBe(false);
    for (const request of [
      { organization: ['update' as const] },
      { member: ['create' as const] },
      { invitation: ['cancel' as const] },
      { team: ['create' as const] },
    ]) {
      expect(authorize(['member'], request).success).toBe(false);
    }
  });

  it('words the three denials exactly as the spec does', () => {
    expect(authorize(['member'], { organization: ['update'] }).error).toBe(
      'You are not allowed to access resource: organization',
    );
    expect(authorize(['admin'], { organization: ['delete'] }).error).toBe(
      'unauthorized to access resource "organization"',
    );
    expect(authorize(['auditor'], { team: ['create'] }).error).toBe('Not authorized');
    expect(authorize([], { team: ['create'] }).error).toBe('Not authorized');
  });

  it('passes a comma-separated role when any one of its roles grants the permission', () => {
    expect(authorize(['member,admin'], { member: ['delete'] })).toEqual({ success: true });
    expect(authorize(['member', 'owner'], { organization: ['delete'] })).toEqual({ success: true });
    expect(authorize(['member, admin'], { organization: ['delete'] }).success).toBe(false);
  });
});
