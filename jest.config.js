/** Jest runs the TypeScript suites directly (type checking happens in `npm test` via tsc). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }], '^.+/node_modules/jose/.+\\.js$': '<rootDir>/test/support/esmTransform.js' },
  // jose 6 ships only ES modules; let the transform above compile it for Jest's CommonJS runtime.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  setupFiles: ['<rootDir>/test/support/env.ts', '<rootDir>/test/support/queryRecorder.ts'],
  maxWorkers: 2,
  testTimeout: 30000,
  // Structured logs go to the console; run with --silent=false to see them.
  silent: true,
};
