import { createReadStream, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { REPO_ROOT } from '../config/paths';

/**
 * What Firebase Hosting serves from `hosting-public/` deployed, served by `npm start` locally:
 * the dashboard's static files under `/dashboard/` and the API reference under `/reference/`,
 * each with its Content-Security-Policy. Everything else goes to the API app, as Hosting's
 * rewrites send it to the functions.
 */
export const HOSTING_PUBLIC = join(REPO_ROOT, 'hosting-public');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export function withHostingPublic(api: Handler, root = HOSTING_PUBLIC): Handler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const folder = Object.keys(STATIC_FOLDERS).find((name) => path === `/${name}` || path.startsWith(`/${name}/`));
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !folder) return api(req, res);
    if (path === `/${folder}`) {
      res.writeHead(301, { Location: `/${folder}/` }).end();
      return;
    }
    let relative: string;
    try {
      relative = decodeURIComponent(path.endsWith('/') ? `${path}index.html` : path);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const file = normalize(join(root, relative));
    if (!file.startsWith(join(root, folder) + sep)) {
      res.writeHead(404).end();
      return;
    }
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw new Error('not a file');
      size = stat.size;
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`Not found. Was the ${folder} built? (npm run build:dashboard)`);
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': size,
      // As firebase.json's headers: the page may load only its own scripts and talk only to its own origin (+ Firebase Auth's REST endpoints).
      'Content-Security-Policy': STATIC_FOLDERS[folder],
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  };
}

export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' https://identitytoolkit.googleapis.com https://securetoken.googleapis.com; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The API reference is one HTML file and its stylesheet: no script at all, nothing from elsewhere. */
export const REFERENCE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The folders of hosting-public/ served as files, each with its Content-Security-Policy (firebase.json's headers match). */
const STATIC_FOLDERS: Record<string, string> = { dashboard: DASHBOARD_CSP, reference: REFERENCE_CSP };
