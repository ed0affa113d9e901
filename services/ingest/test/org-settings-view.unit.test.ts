import type { BusMessage } from '@formgate/bus';
import { encodeEvent, type SpamSettingsPatch, Topics } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createOrgSettingsView } from '../src/views/org-settings-view.ts';

const message = (orgId: string, version: number, spam: SpamSettingsPatch | null): BusMessage => ({
  topic: Topics.orgsSettings,
  partition: 0,
  offset: String(version),
  key: orgId,
  headers: {},
  timestamp: 0,
  value: encodeEvent(Topics.orgsSettings, {
    id: `${orgId}-${version}`,
    type: 'org.settings-changed',
    version: 1,
    occurredAt: new Date(0).toISOString(),
    data: { orgId, spam, version },
  }),
});

describe('org settings view', () => {
  it('keeps the highest version per organization, whatever the order', () => {
    const view = createOrgSettingsView();
    view.apply(message('org-1', 2, { timeTrapSeconds: 5 }));
    view.apply(message('org-1', 1, { timeTrapSeconds: 1 }));
    view.apply(message('org-2', 1, { shadow: true }));
    expect(view.spamDefaults('org-1')).toEqual({ timeTrapSeconds: 5 });
    expect(view.spamDefaults('org-2')).toEqual({ shadow: true });
    view.apply(message('org-1', 3, null));
    expect(view.spamDefaults('org-1')).toBeNull();
    expect(view.spamDefaults('org-unknown')).toBeNull();
    expect(view.size).toBe(2);
  });

  it('rejects a record that is not an org.settings-changed', () => {
    const view = createOrgSettingsView();
    expect(() => view.apply({ ...message('org-1', 1, null), value: '{"type":"nope"}' })).toThrow();
  });

  it('settles: a wait for a version resolves once it is applied (or a later one), false at its timeout', async () => {
    const view = createOrgSettingsView();
    view.apply(message('org-1', 1, null));
    expect(await view.until('org-1', 1, 10)).toBe(true);
    const waiting = view.until('org-1', 3, 5_000);
    view.apply(message('org-1', 2, null));
    view.apply(message('org-1', 4, { shadow: true }));
    expect(await waiting).toBe(true);
    expect(await view.until('org-1', 5, 20)).toBe(false);
    expect(await view.until('org-unknown', 1, 20)).toBe(false);
  });
});
