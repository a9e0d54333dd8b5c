/**
 * Where this process runs: the one test of it that settings, the secret store and the dashboard's
 * sign-in share. Cloud Run (functions v2) sets `K_SERVICE`; the Firebase emulator sets it too,
 * and marks itself with `FUNCTIONS_EMULATOR=true`. The local runner, the CLI and the tests set
 * neither.
 */
type Environment = Record<string, string | undefined>;

/** Inside firebase-tools' functions emulator (`npm run emulators`). */
export function isFunctionsEmulator(environment: Environment = process.env): boolean {
  return environment.FUNCTIONS_EMULATOR === 'true';
}

/** A deployed Cloud Function (never the emulator, the local runner, the CLI or a test). */
export function isDeployedFunction(environment: Environment = process.env): boolean {
  return Boolean(environment.K_SERVICE) && !isFunctionsEmulator(environment);
}
