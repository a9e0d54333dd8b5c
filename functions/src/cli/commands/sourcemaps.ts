import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { getProject } from '../../projects/repository';
import { RELEASE } from '../../ids';
import { MAX_FILES_PER_BATCH } from '../../wire/sourcemaps';
import { uploadSourceMapBatch, type FileStatus } from '../../sourcemaps/uploadService';
import { ENVS } from '../../store/env';
import { EnvScope } from '../../store/scope';
import { positionalArgs, requireOneOf, requireString, type Command } from '../command';
import { OperatorError } from '../operatorError';
import { renderTable } from '../table';

/**
 * `tessera sourcemaps upload --release R --url-prefix URL DIR` (as `sentry-cli sourcemaps
 * upload`): every `*.map` under DIR, stored for the runtime URL of its script (URL-PREFIX + the
 * path under DIR without `.map`), through the upload API's own service and checks, at most 100
 * files and about 24 MiB per batch. Re-running skips what is stored unchanged.
 */
const BATCH_BYTES = 24 * 1024 * 1024;

interface MapFile {
  path: string;
  fileUrl: string;
  size: number;
}

export interface UploadSummary {
  projectId: string;
  env: string;
  release: string;
  files: number;
  uploaded: number;
  skipped: number;
  errors: { file: string; fileUrl: string | null; code: string; message: string }[];
}

async function mapFilesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await mapFilesUnder(path)));
    else if (entry.isFile() && entry.name.endsWith('.map')) found.push(path);
  }
  return found.sort();
}

function batchesOf(files: readonly MapFile[]): MapFile[][] {
  const batches: MapFile[][] = [];
  let current: MapFile[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && (current.length >= MAX_FILES_PER_BATCH || bytes + file.size > BATCH_BYTES)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export const sourcemapCommands: Command[] = [
  {
    name: 'sourcemaps upload',
    summary: '--project ID --env test|live --release R --url-prefix URL [--format table|json] DIR   (every *.map under DIR)',
    options: { project: { type: 'string' }, env: { type: 'string' }, release: { type: 'string' }, 'url-prefix': { type: 'string' } },
    positionals: [{ name: 'DIR', description: 'The build output holding the source maps (searched recursively for *.map).' }],
    async run(values, { db, clock }): Promise<UploadSummary> {
      const projectId = requireString(values, 'project');
      const env = requireOneOf(values, 'env', ENVS);
      const release = requireString(values, 'release');
      if (!RELEASE.is(release)) throw new OperatorError('invalid_argument', '--release must be 1–64 characters: letters, digits, `.`, `_` or `-`.');
      const prefix = requireString(values, 'url-prefix');
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S*$/.test(prefix)) throw new OperatorError('invalid_argument', '--url-prefix must be a scheme:// URL, for example https://app.example.com/ or app:///.');
      const [dir] = positionalArgs(values);
      const info = await stat(dir).catch(() => null);
      if (!info?.isDirectory()) throw new OperatorError('invalid_argument', `${dir} is not a directory.`);
      await getProject(db, projectId);

      const base = prefix.endsWith('/') ? prefix : `${prefix}/`;
      const files: MapFile[] = [];
      for (const path of await mapFilesUnder(dir)) {
        const script = relative(dir, path).split(sep).join('/').replace(/\.map$/, '');
        files.push({ path, fileUrl: `${base}${script}`, size: (await stat(path)).size });
      }
      if (files.length === 0) throw new OperatorError('invalid_argument', `No *.map file under ${dir}.`);

      const scope = new EnvScope(db, projectId, env);
      const summary: UploadSummary = { projectId, env, release, files: files.length, uploaded: 0, skipped: 0, errors: [] };
      for (const batch of batchesOf(files)) {
        const entries = await Promise.all(batch.map(async (file) => ({ fileUrl: file.fileUrl, sourceMap: (await readFile(file.path)).toString('base64') })));
        const outcome = await uploadSourceMapBatch(scope, release, entries, { now: clock.now(), keyId: 'operator_cli' });
        outcome.results.forEach((row, i) => {
          const status: FileStatus = row.status;
          if (status === 'uploaded') summary.uploaded += 1;
          else if (status === 'skipped') summary.skipped += 1;
          else summary.errors.push({ file: relative(dir, batch[i].path), fileUrl: row.fileUrl, code: row.error!.code, message: row.error!.message });
        });
      }
      return summary;
    },
    table(result) {
      const summary = result as UploadSummary;
      const head = `Release ${summary.release} (${summary.env}): ${summary.files} source maps, ${summary.uploaded} uploaded, ${summary.skipped} unchanged, ${summary.errors.length} refused\n`;
      return summary.errors.length === 0 ? head : `${head}\n${renderTable(['file', 'reason', 'message'], summary.errors.map((e) => [e.file, e.code, e.message]))}`;
    },
  },
];
