/**
 * `npm run test:e2e`: end-to-end tests against the Firebase emulator suite (`npm run emulators`'
 * entry point on free ports), driven through Hosting's port. One worker: the suite is shared.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/e2e'],
  testMatch: ['**/*.e2e.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }], '^.+/node_modules/jose/.+\\.js$': '<rootDir>/test/support/esmTransform.js' },
  // jose 6 ships only ES modules (the workers test reaches it through identity/): compiled as in jest.config.js.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  globalSetup: '<rootDir>/e2e/support/globalSetup.ts',
  globalTeardown: '<rootDir>/e2e/support/globalTeardown.ts',
  setupFiles: ['<rootDir>/e2e/support/env.ts'],
  maxWorkers: 1,
  testTimeout: 300000,
  silent: false,
};
