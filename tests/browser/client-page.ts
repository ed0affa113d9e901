import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '../..');

export interface ClientPageOptions {
  /** The page's JSX: it imports the client from `./client/react.js` (or `./client/index.js`) and React. */
  pageSource: string;
  /** The document's `<title>`. */
  title: string;
  /** Set as `window.FORM_KEY` before the page runs. */
  formKey: string;
  /** Formgate's origin, set as `window.FORMGATE_URL`. */
  formgateUrl: string;
  /** Markup after the page's script (another `<script type=module>` importing `/client/index.js`, say). */
  extraBody?: string;
}

export interface ClientPageSite {
  /** The page, on `http://localhost:<port>/`: another origin than Formgate's `127.0.0.1`. */
  url: string;
  close(): Promise<void>;
}

/**
 * A customer's site using `@formgate/client`: the client as its build ships it (`scripts/build.mjs`, bundles only),
 * the page's JSX bundled on top of it with React from node_modules by esbuild, as a site's bundler would, served from
 * a local `node:http` server on another origin than Formgate's (the public endpoint's CORS is open). Every path but
 * `/page.js` and `/client/index.js` (the unbundled build) answers the page.
 */
export async function serveClientPage(options: ClientPageOptions): Promise<ClientPageSite> {
  const outDir = mkdtempSync(join(tmpdir(), 'fg-client-page-'));
  try {
    await promisify(execFile)(process.execPath, [
      join(ROOT, 'packages/client/scripts/build.mjs'),
      '--outdir',
      join(outDir, 'client'),
      '--no-types',
    ]);
    writeFileSync(join(outDir, 'page.jsx'), options.pageSource);
    await build({
      entryPoints: [join(outDir, 'page.jsx')],
      outfile: join(outDir, 'page.js'),
      bundle: true,
      format: 'esm',
      jsx: 'automatic',
      nodePaths: [join(ROOT, 'tests/node_modules')],
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'warning',
    });
    const files: Record<string, string> = {
      '/page.js': readFileSync(join(outDir, 'page.js'), 'utf8'),
      '/client/index.js': readFileSync(join(outDir, 'client/index.js'), 'utf8'),
    };
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${options.title}</title></head><body>
<div id="root"></div>
<script>window.FORM_KEY = ${JSON.stringify(options.formKey)}; window.FORMGATE_URL = ${JSON.stringify(options.formgateUrl)};</script>
<script type="module" src="/page.js"></script>
${options.extraBody ?? ''}</body></html>`;
    const site = createServer((req, res) => {
      const js = files[req.url ?? ''];
      if (js) res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    return {
      url: `http://localhost:${(site.address() as AddressInfo).port}/`,
      async close() {
        site.closeAllConnections();
        await new Promise((r) => site.close(r));
      },
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
