import type { QueryClient } from '@tanstack/react-query';
import { QueryClientProvider } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';
import { ApiError } from './api.ts';
import type { AuthClient } from './auth-client.ts';
import { AppToaster } from './toaster.tsx';

/** What every screen may reach: the auth client and the instance's own configuration, passed from `main.tsx`. */
export interface AppServices {
  auth: AuthClient;
}

const ServicesContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices outside <AppProviders>');
  return services;
}

export function AppProviders(props: { queryClient: QueryClient; services: AppServices; children: ReactNode }) {
  return (
    <QueryClientProvider client={props.queryClient}>
      <ServicesContext.Provider value={props.services}>
        {props.children}
        <AppToaster />
      </ServicesContext.Provider>
    </QueryClientProvider>
  );
}

type BetterAuthResult<T> =
  | { data: T; error: null }
  | { data: null; error: { status: number; statusText: string; message?: string; code?: string } };

/** better-auth's client answers `{ data, error }`; this turns its error into the same `ApiError` as `apiFetch`. */
export function unwrap<T>(result: BetterAuthResult<T>): T {
  if (result.error) {
    const { status, statusText, ...body } = result.error;
    throw new ApiError({ status, statusText, body });
  }
  return result.data;
}
