import { DomainError } from '../errors/domain';
import { type ResolvedFrame, resolveStackFrames } from '../sourcemaps/resolve';
import { parseStackTrace } from '../sourcemaps/stackTrace';
import { ERROR_FINGERPRINT, RELEASE } from '../ids';
import type { EnvScope } from '../store/scope';
import type { ErrorGroupDetail } from '../wire/reports';
import { errorGroupRef, errorGroupShardRef, GROUP_SHARDS } from '../store/rollups/errorGroupModel';
import { summaryOf } from './errorsReport';


/**
 * `GET /v1/reports/errors/{fingerprint}`, as a service: the group, its counts and its latest
 * sample, whose stack is symbolicated now through the sample's release's source maps (so maps
 * uploaded after the error still apply). Reads 1 + GROUP_SHARDS documents, then the release's
 * manifests and map chunks for the frames' files. Unknown fingerprint: `invalid_argument`.
 */
export async function errorGroupDetail(scope: EnvScope, fingerprint: string): Promise<ErrorGroupDetail> {
  if (!ERROR_FINGERPRINT.is(fingerprint)) throw unknownGroup(fingerprint);
  const [group, ...shards] = await scope.getAll(
    errorGroupRef(scope, fingerprint),
    ...Array.from({ length: GROUP_SHARDS }, (_, s) => errorGroupShardRef(scope, fingerprint, s)),
  );
  if (!group.exists) throw unknownGroup(fingerprint);
  const doc = group.data()!;
  const summary = summaryOf(doc, shards.map((s) => (s.data() ?? null)));
  const sample = doc.sample;
  if (!sample) return { ...summary, latestSample: null };
  const parsed = sample.stack ? parseStackTrace(sample.stack) : { frames: [] };
  const release = sample.release !== null && RELEASE.is(sample.release) ? sample.release : null;
  const frames: ResolvedFrame[] = release
    ? await resolveStackFrames(scope, release, parsed.frames)
    : parsed.frames.map((frame) => ({ ...frame, original: null, reason: frame.fileUrl && frame.line ? 'no_sourcemap' : 'no_location' }));
  return {
    ...summary,
    latestSample: {
      eventId: sample.eventId,
      timestamp: sample.timestamp,
      level: sample.level,
      release: sample.release,
      message: sample.message,
      serviceCustomerId: sample.serviceCustomerId,
      rawStack: sample.stack,
      frames,
    },
  };
}

const unknownGroup = (fingerprint: string): DomainError =>
  new DomainError('invalid_argument', `No error group ${JSON.stringify(fingerprint.slice(0, 64))} in this project and environment.`);
