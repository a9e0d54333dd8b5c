import { suite } from './suite';

/** Test files reach the suite's Firestore (for what no API shows) as the suite's own project. */
const { running } = suite();
process.env.FIRESTORE_EMULATOR_HOST = running.firestoreEmulatorHost;
process.env.GCLOUD_PROJECT = running.gcloudProject;
process.env.METADATA_SERVER_DETECTION = 'none';
