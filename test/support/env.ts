import { randomBytes } from 'node:crypto';

// Every worker talks to the run's emulator under a Firebase project id that needs no credentials.
if (!process.env.FIRESTORE_EMULATOR_HOST) throw new Error('FIRESTORE_EMULATOR_HOST is not set: run the suites through jest (globalSetup starts the emulator).');
// One emulator database per test file (the emulator keeps each project id apart): the workers
// scan every project of their database (the outbox relay, expiry, retention, rollup compaction),
// and a suite moving its clock forward must not relay, expire or compact another suite's data.
process.env.GCLOUD_PROJECT = `demo-tessera-test-${randomBytes(4).toString('hex')}`;
// No GCP metadata-server probing from the Google libraries on a developer machine or in CI.
process.env.METADATA_SERVER_DETECTION = 'none';
