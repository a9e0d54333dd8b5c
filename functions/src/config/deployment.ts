/**
 * Whether this process is a deployed Cloud Function: the one test of it that settings and the
 * secret store share. Cloud Run (functions v2) sets `K_SERVICE`; the Firebase emulator sets it
 * too, and marks itself with `FUNCTIONS_EMULATOR=true`. The local runner, the CLI and the tests
 * set neither.
 */
export function isDeployedFunction(environment: Record<string, string | undefined> = process.env): boolean {
  return Boolean(environment.K_SERVICE) && environment.FUNCTIONS_EMULATOR !== 'true';
}
