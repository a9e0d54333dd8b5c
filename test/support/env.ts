// Every worker talks to the run's emulator under a Firebase project id that needs no credentials.
if (!process.env.FIRESTORE_EMULATOR_HOST) throw new Error('FIRESTORE_EMULATOR_HOST is not set: run the suites through jest (globalSetup starts the emulator).');
process.env.GCLOUD_PROJECT = 'demo-tessera-test';
// No GCP metadata-server probing from the Google libraries on a developer machine or in CI.
process.env.METADATA_SERVER_DETECTION = 'none';
