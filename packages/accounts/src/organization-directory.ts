import type { OutboxAdapter } from './org-events/schema.ts';

/** An organization as the operator sees it (`formgate orgs list`). */
export interface OrganizationSummary {
  id: string;
  slug: string;
  name: string;
  createdAt: string | null;
}

interface OrganizationRow {
  id: string;
  slug?: string | null;
  name?: string | null;
  createdAt?: Date | string | null;
}

const summary = (row: OrganizationRow): OrganizationSummary => ({
  id: row.id,
  slug: row.slug ?? '',
  name: row.name ?? '',
  createdAt: row.createdAt ? new Date(row.createdAt).toISOString() : null,
});

/** Organizations read from better-auth's database, for the operator API (ids, slugs and names; never members). */
export function createOrganizationDirectory(adapter: () => OutboxAdapter) {
  return {
    /** The organization with this id, else the one with this slug; `null` when neither exists. */
    async find(idOrSlug: string): Promise<OrganizationSummary | null> {
      for (const field of ['id', 'slug']) {
        const row = await adapter().findOne<OrganizationRow>({
          model: 'organization',
          where: [{ field, value: idOrSlug }],
        });
        if (row) return summary(row);
      }
      return null;
    },
    /** At most `limit` organizations, oldest first. */
    async list(limit: number): Promise<OrganizationSummary[]> {
      const rows = await adapter().findMany<OrganizationRow>({
        model: 'organization',
        limit,
        sortBy: { field: 'createdAt', direction: 'asc' },
      });
      return rows.map(summary);
    },
  };
}

export type OrganizationDirectory = ReturnType<typeof createOrganizationDirectory>;
