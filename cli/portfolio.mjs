#!/usr/bin/env node
// The `portfolio` command from the TypeScript sources through tsx (development and tests);
// `npm start` and the installed command run the compiled dist/cli/portfolio.js instead. tsx is a
// development dependency: an install without those has only the compiled command.
import { register } from 'tsx/esm/api';

register();
await import('./portfolio.ts');
