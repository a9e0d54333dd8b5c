#!/usr/bin/env node
// The operator CLI. Built from functions/src/cli by `npm run build`.
require('../lib/cli/main.js');
