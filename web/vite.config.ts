/**
 * Builds the web app into dist/: index.html, hashed files under assets/ (the gateway caches them immutably), with a
 * brotli and a gzip copy of each text file, and routes.json, the app's page patterns (the gateway answers 200 for
 * them and 404 for any other app path).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
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

/**
 * `x.js.br` and `x.js.gz` beside every script, style sheet and SVG under assets/, compressed once at the highest
 * levels: the gateway sends the copy the browser accepts (@fastify/static's `preCompressed`), so the app arrives
 * compressed with no proxy configured for it and no CPU spent per request. Small files too: one without copies
 * would be compressed on every request (the gateway compresses what it sends, app.ts). From the written files, so
 * that the copies are exactly what is served uncompressed. Source maps are left alone (only developer tools load
 * them).
 */
function precompressed(): Plugin {
  return {
    name: 'assay-precompressed',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      for (const name of Object.keys(bundle)) {
        if (!/^assets\/.+\.(js|css|svg)$/.test(name)) continue;
        const file = path.join(dir, name);
        const bytes = fs.readFileSync(file);
        const quality = { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY };
        fs.writeFileSync(
          `${file}.br`,
          zlib.brotliCompressSync(bytes, { params: { ...quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
        );
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: zlib.constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), routesJson(), precompressed()],
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
