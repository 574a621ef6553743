#!/usr/bin/env node
// `npm start`: builds dist/ only when a source changed since the last build (install builds it
// through `prepare`), then runs the compiled `portfolio` command in this same process.
import { build, buildIsCurrent } from './build.mjs';

if (!buildIsCurrent()) {
  process.stderr.write('sources changed since the last build: compiling into dist/ …\n');
  const status = build();
  if (status !== 0) process.exit(status);
}
await import('../dist/cli/portfolio.js');
