import { join } from 'node:path';

/**
 * Where the build writes the generated document and the platform group reads it: beside the
 * compiled code (`functions/lib/openapi.json`, deployed with it). From `functions/src/app/openapi`
 * (the TypeScript tests) and `functions/lib/app/openapi` alike.
 */
export const OPENAPI_FILE = join(__dirname, '..', '..', '..', 'lib', 'openapi.json');

/** The functions package (its version is the document's). */
export const FUNCTIONS_PACKAGE_FILE = join(__dirname, '..', '..', '..', 'package.json');
