// jest for the judge's `jest` language (judge_service/sandbox/_framework_languages.py): the
// suite is /work/main.test.js, which esbuild compiled from the program, so jest needs no
// transform. The sandbox's root is read-only and /work its only writable directory besides
// /tmp: jest's cache goes in /work (cleared with the job), and jest runs in one process
// (no watchman, no `find` child for the file crawl, no workers).
'use strict';

const home = '/opt/judge/jest';

module.exports = {
  rootDir: '/work',
  roots: ['/work'],
  testMatch: ['/work/main.test.js'],
  transform: {},
  cacheDirectory: '/work/.jest-cache',
  watchman: false,
  haste: { forceNodeFilesystemAPI: true },
  // The image's npm packages (lodash, ...) as in the javascript language, and jest's own
  // (@jest/globals, expect).
  modulePaths: ['/usr/local/lib/node_modules', `${home}/node_modules`],
  testEnvironment: 'node',
  maxWorkers: 1,
  ci: true,
};
