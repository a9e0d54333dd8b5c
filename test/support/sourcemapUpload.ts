import { checkSourceMapBytes, decodeUploadFile, type DecodedFile, type RejectedFile } from '../../functions/src/sourcemaps/fileCheck';

/** Both stages of the upload check, as the route runs them for content not stored yet: the complete verdict on one file. */
export function checkUploadFile(entry: unknown): DecodedFile | RejectedFile {
  const decoded = decodeUploadFile(entry);
  return decoded.ok ? (checkSourceMapBytes(decoded) ?? decoded) : decoded;
}
