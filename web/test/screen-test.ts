import { configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { renderApp, signedIn } from './render-app.tsx';

/** Whole screens over real HTTP on a shared 2-core machine: more than the default timeouts when it is busy. */
export function allowSlowScreens() {
  vi.setConfig({ testTimeout: 30_000 });
  configure({ asyncUtilTimeout: 15_000 });
}

/** Closes after each test the servers given to the function it returns. Call it at the top level of a file. */
export function closeAfterEach() {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  return <S extends { close(): Promise<void> }>(server: S): S => {
    servers.push(server);
    return server;
  };
}

/** The app at `path`, signed in as a member of `org1` with `role`, its `/api/*` calls going to `apiBaseUrl`. */
export const openAs = (path: string, apiBaseUrl: string, role = 'owner') =>
  renderApp(path, { session: signedIn('org1'), apiBaseUrl, role });
