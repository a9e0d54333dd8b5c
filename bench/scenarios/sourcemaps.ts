import type { BenchContext, Scenario } from '../scenario';
import { sourcemapBatchBody } from '../../fixtures/sourcemapCorpus';

const secretKey = (ctx: BenchContext) => ctx.project.apps.find((a) => a.platform === 'web')!.keys.test.secret;
const PATH = '/v1/releases/sourcemaps';

/** 100 realistic maps (about 200 KB each, 27 MB of JSON) per request. */
function batchText(release: string): string {
  return JSON.stringify(sourcemapBatchBody(release, 'sandbox'));
}

export const sourcemapScenarios: Scenario[] = [
  {
    name: 'POST /v1/releases/sourcemaps, 100 maps (~27 MB), each request a new release: all uploaded',
    connections: 2,
    prepare: async (ctx) => {
      const [before, after] = batchText('RELEASE_PLACEHOLDER').split('RELEASE_PLACEHOLDER');
      let sequence = 0;
      return {
        method: 'POST',
        path: PATH,
        headers: { Authorization: `Bearer ${secretKey(ctx)}` },
        nextBody: () => `${before}bench-fresh-${(sequence += 1)}${after}`,
      };
    },
  },
  {
    name: 'POST /v1/releases/sourcemaps, 100 maps (~27 MB), identical re-upload: all skipped',
    connections: 2,
    prepare: async (ctx) => {
      const text = batchText('bench-reupload');
      return { method: 'POST', path: PATH, headers: { Authorization: `Bearer ${secretKey(ctx)}` }, nextBody: () => text };
    },
  },
];
