/**
 * Guarantees of how the page is served: npm start serves exactly hosting-public/dashboard and
 * hosting-public/reference (no path escapes them, everything else goes to the API), each with the
 * same Content-Security-Policy that firebase.json gives Hosting (scripts only from the page's own
 * origin: nothing from a CDN; the API reference runs no script at all).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { DASHBOARD_CSP, REFERENCE_CSP, withHostingPublic } from '../../functions/src/local/hosting';

const root = mkdtempSync(join(tmpdir(), 'hosting-'));
mkdirSync(join(root, 'dashboard'));
writeFileSync(join(root, 'dashboard', 'index.html'), '<!doctype html><title>t</title>');
writeFileSync(join(root, 'dashboard', 'app.js'), 'export {}');
mkdirSync(join(root, 'reference'));
writeFileSync(join(root, 'reference', 'index.html'), '<!doctype html><title>r</title>');
writeFileSync(join(root, 'secret.txt'), 'outside');
const server = createServer(withHostingPublic((_req, res) => res.writeHead(418).end('api'), root));

it('serves the dashboard files with the CSP and sends every other path to the API', async () => {
  const index = await supertest(server).get('/dashboard/');
  expect(index.status).toBe(200);
  expect(index.headers['content-type']).toContain('text/html');
  expect(index.headers['content-security-policy']).toBe(DASHBOARD_CSP);
  expect((await supertest(server).get('/dashboard/app.js')).headers['content-type']).toContain('text/javascript');
  expect((await supertest(server).get('/dashboard')).status).toBe(301);
  expect((await supertest(server).get('/v1/healthz')).status).toBe(418);
  expect((await supertest(server).post('/dashboard/')).status).toBe(418);
});

it('never serves a file outside hosting-public/dashboard', async () => {
  for (const path of ['/dashboard/../secret.txt', '/dashboard/%2e%2e/secret.txt', '/dashboard/..%2fsecret.txt', '/dashboard/missing.js']) {
    const res = await supertest(server).get(path);
    expect([path, res.status, res.text.includes('outside')]).toEqual([path, expect.any(Number), false]);
    expect(res.status === 200).toBe(false);
  }
});

it('gives deployed Hosting the same Content-Security-Policy (firebase.json)', () => {
  const firebase = JSON.parse(readFileSync(join(__dirname, '..', '..', 'firebase.json'), 'utf8'));
  const rule = firebase.hosting.headers.find((h: { source: string }) => h.source === '/dashboard/**');
  expect(rule.headers.find((h: { key: string }) => h.key === 'Content-Security-Policy').value).toBe(DASHBOARD_CSP);
  expect(DASHBOARD_CSP).toContain("script-src 'self'");
});

it('serves the API reference with its own CSP (no script), as firebase.json gives Hosting', async () => {
  const index = await supertest(server).get('/reference/');
  expect([index.status, index.headers['content-security-policy']]).toEqual([200, REFERENCE_CSP]);
  expect((await supertest(server).get('/reference')).status).toBe(301);
  for (const path of ['/reference/../secret.txt', '/reference/%2e%2e/secret.txt', '/reference/missing.css']) {
    const res = await supertest(server).get(path);
    expect([path, res.status === 200, res.text.includes('outside')]).toEqual([path, false, false]);
  }
  const firebase = JSON.parse(readFileSync(join(__dirname, '..', '..', 'firebase.json'), 'utf8'));
  const rule = firebase.hosting.headers.find((h: { source: string }) => h.source === '/reference/**');
  expect(rule.headers.find((h: { key: string }) => h.key === 'Content-Security-Policy').value).toBe(REFERENCE_CSP);
  expect(REFERENCE_CSP).toContain("default-src 'none'");
  expect(REFERENCE_CSP).not.toContain('script-src');
});
