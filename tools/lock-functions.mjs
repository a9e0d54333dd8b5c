#!/usr/bin/env node
// `npm run lock:functions`: writes functions/package-lock.json, the lock Cloud Build installs the
// deployed bundle from (`npm ci`). functions/ is a workspace of the root here, so npm would only
// update the root lock; this resolves functions/package.json on its own, in a scratch folder.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const functions = join(dirname(fileURLToPath(import.meta.url)), '..', 'functions');
const scratch = mkdtempSync(join(tmpdir(), 'tessera-functions-lock-'));
try {
  copyFileSync(join(functions, 'package.json'), join(scratch, 'package.json'));
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: scratch, stdio: 'inherit' });
  copyFileSync(join(scratch, 'package-lock.json'), join(functions, 'package-lock.json'));
  console.log('functions/package-lock.json written');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
