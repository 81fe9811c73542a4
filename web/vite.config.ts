/**
 * Builds the web app into dist/: index.html, hashed files under assets/ (the gateway caches them immutably) and
 * routes.json, the app's page patterns (the gateway answers 200 for them and 404 for any other app path).
 */
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { PAGE_PATTERNS } from './src/app/paths.ts';

function routesJson(): Plugin {
  return {
    name: 'assay-routes-json',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'routes.json', source: `${JSON.stringify(PAGE_PATTERNS, null, 2)}\n` });
    },
  };
}

export default defineConfig({
  plugins: [react(), routesJson()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    sourcemap: true,
    // The initial bundle has a budget (bench/): big libraries only load with the pages that need them.
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npm run dev -w web` against a running `make up`: the API and the session cookie through the dev server.
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
});
