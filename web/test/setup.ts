import { File as NodeFile } from 'node:buffer';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
  window.sessionStorage.clear();
});

// jsdom has no media queries; the toaster asks for the system theme with one. A light system, no matches.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addEventListener: () => {},
      removeEventListener: () => {},
      addListener: () => {},
      removeListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

// jsdom does not scroll; the router's scroll restoration calls this on every navigation.
window.scrollTo = () => {};
configure({ asyncUtilTimeout: 5000 });

// The components post jsdom's FormData through Node's fetch. Node 20's fetch took any FormData-like object; from
// Node 22 on it takes only its own class (anything else is sent as the text "[object FormData]"). Hand it Node's
// FormData with the same entries, multipart as a browser sends it.
const NodeFormData = (await new Response(new URLSearchParams()).formData()).constructor as typeof FormData;
const nodeFetch = globalThis.fetch;
globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const body: unknown = init?.body;
  if (!(body instanceof window.FormData) || body instanceof NodeFormData) return nodeFetch(input, init);
  const copy = new NodeFormData();
  for (const [name, value] of (body as FormData).entries()) {
    if (typeof value === 'string') copy.append(name, value);
    else
      copy.append(
        name,
        new NodeFile([new Uint8Array(await value.arrayBuffer())], value.name, { type: value.type }) as Blob,
      );
  }
  return nodeFetch(input, { ...init, body: copy });
};
