/**
 * Every process's entry point: the bundle the image runs (`node dist/<name>.mjs`) → its source. Read by
 * build-runtime.ts (what to bundle) and by the tests of docker-compose.yml and of the runtime tree.
 */
export const ENTRY_POINTS: Record<string, string> = {
  embedded: 'hosts/embedded/src/main.ts',
  // Not processes of their own: the embedded host's threads (ADR 77), started by `embedded.mjs`.
  'embedded-log': 'hosts/embedded/src/threads/log-worker.ts',
  'embedded-services': 'hosts/embedded/src/threads/services-worker.ts',
  gateway: 'gateway/src/main.ts',
  forms: 'services/forms/src/main.ts',
  ingest: 'services/ingest/src/main.ts',
  billing: 'services/billing/src/main.ts',
  notifications: 'services/notifications/src/main.ts',
  orgs: 'services/orgs/src/main.ts',
  formgate: 'packages/cli/src/main.ts',
};

/** The source entry point a container command runs (`["node", "dist/forms.mjs"]` → services/forms/src/main.ts). */
export function sourceOfCommand(command: readonly string[] | undefined): string | undefined {
  const bundle = command?.find((part) => /^dist\/[a-z-]+\.mjs$/.test(part));
  return bundle ? ENTRY_POINTS[bundle.slice('dist/'.length, -'.mjs'.length)] : undefined;
}
