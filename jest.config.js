/**
 * One jest run for everything: unit tests, component tests against real Postgres/Redis/Kafka, and
 * end-to-end tests over HTTP. The global setup starts the infrastructure and the whole system once.
 * TypeScript is transpiled per file by ts-jest (isolatedModules: no type check here; `npm run typecheck` does that).
 */
const ESM_ONLY = [
  'cookie',
  'content-disposition',
  'htmlparser2',
  'domhandler',
  'domutils',
  'dom-serializer',
  'entities',
  'domelementtype',
].join('|');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
    // ESM-only dependencies that jest's CommonJS runtime cannot require (cookie 2, used by Fastify's inject;
    // content-disposition 2, used by @fastify/static; htmlparser2 and its dom* / entities packages, used by
    // sanitize-html): transpiled to CommonJS like our own files. Node itself loads them natively.
    [`^.+/node_modules/(${ESM_ONLY})/.+\\.js$`]: ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY})/)`],
  testMatch: [
    '<rootDir>/{packages,gateway,services}/*/test/**/*.test.ts',
    '<rootDir>/gateway/test/**/*.test.ts',
    '<rootDir>/test/**/*.test.ts',
  ],
  // Only crawl source folders (not .cache with its Go module sources, nor .data).
  roots: ['<rootDir>/packages', '<rootDir>/gateway', '<rootDir>/services', '<rootDir>/test'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/packages/testkit/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/packages/testkit/src/jest/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  verbose: false,
};
