/**
 * Jest runs suites as CommonJS, and some runtime libraries ship only ES modules (jose 6).
 * Node 22 loads them with require(esm) in production; under Jest this transform compiles them
 * to CommonJS with esbuild (a dev dependency). Only the packages named in jest.config.js's
 * transformIgnorePatterns exception pass through here.
 */
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, { loader: 'js', format: 'cjs', target: 'node20', sourcemap: true, sourcefile: filename });
    return { code, map };
  },
};
