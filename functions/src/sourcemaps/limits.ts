/**
 * The numbers of the source-map capability, in one place (README.md explains each choice).
 */


/** Runtime file URLs: any `scheme://…` (https, file, app, webpack, capacitor, …), no whitespace. */
export const FILE_URL_PATTERN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s\x00-\x1f\x7f]+$/;
export const MAX_FILE_URL_LENGTH = 2048;

/**
 * Largest accepted source map, measured after base64 decoding (`sourcemap_too_large` above it).
 * Large enough for a vendor bundle's map; small enough that parsing it stays well inside a
 * function's memory.
 */
export const MAX_SOURCEMAP_BYTES = 16 * 1024 * 1024;

/**
 * Request body limit of the upload route. Cloud Functions (2nd gen) refuses HTTP requests
 * above 32 MiB before our code runs; 30 MiB leaves room for the JSON envelope and headers and
 * holds 100 maps of about 225 KiB each (base64 adds a third).
 */
export const MAX_UPLOAD_BODY_BYTES = 30 * 1024 * 1024;

/**
 * Stored bytes per chunk document. Firestore's limit is 1 MiB per document including its name
 * and field names; 900 KiB of payload leaves ample headroom.
 */
export const CHUNK_BYTES = 900 * 1024;

/**
 * Payload bytes per write batch. Firestore accepts commits up to 10 MiB, but the Firestore
 * emulator's gRPC server takes at most 4 MiB per message, and the client retries a larger
 * commit forever instead of failing; 3 MiB is safe on both.
 */
export const WRITE_BATCH_BYTES = 3 * 1024 * 1024;

/** Firestore's limit on operations per write batch. */
export const WRITE_BATCH_OPERATIONS = 500;
