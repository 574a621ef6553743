#!/usr/bin/env node
// `npm start`: builds dist/ only when a source changed since the last build (install builds it
// through `prepare`), then runs the bundled `portfolio` command in this same process.
import { existsSync } from 'node:fs';
import { build, buildIsCurrent, compiler } from './build.mjs';

if (!buildIsCurrent()) {
  if (existsSync(new URL('../dist/bundle/portfolio.js', import.meta.url)) && !compiler()) {
    // An install without development dependencies (npm prune --omit=dev) runs the build it has.
    process.stderr.write(
      'sources changed since the last build, but TypeScript is not installed: running dist/\n',
    );
  } else {
    process.stderr.write('sources changed since the last build: compiling into dist/ …\n');
    const status = build();
    if (status !== 0) process.exit(status);
  }
}
await import('../dist/bundle/portfolio.js');
