/**
 * The fast tier (`npm run test:unit`): handler modules over an in-memory Connect transport and gateway route
 * families over `app.inject`, against real Postgres and Redis started by the global setup (no Kafka, no
 * system processes). The same files also run inside the full `npm test` (jest.config.js).
 */
import base from './jest.config.js';

/** @type {import('jest').Config} */
export default {
  ...base,
  testMatch: ['<rootDir>/{packages,gateway,services}/*/test/unit/**/*.test.ts', '<rootDir>/gateway/test/unit/**/*.test.ts'],
  globalSetup: '<rootDir>/packages/testkit/src/jest/unit-setup.ts',
  globalTeardown: '<rootDir>/packages/testkit/src/jest/unit-teardown.ts',
  testTimeout: 20000,
};
