import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [tailwindcss()],
  esbuild: { jsx: 'automatic' },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      // Radix ships "use client" for React Server Components; a client-only bundle has no use for it.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  // `pnpm --filter @formgate/web dev` proxies the API to an embedded Formgate on :3000 (`pnpm start`).
  server: {
    proxy: { '/api': 'http://localhost:3000', '/f': 'http://localhost:3000', '/form': 'http://localhost:3000' },
  },
});
