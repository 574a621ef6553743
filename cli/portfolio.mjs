#!/usr/bin/env node
// The `portfolio` command: TypeScript sources run through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
const code = await main(process.argv.slice(2));
// Exit explicitly: a stray handle (a pool timer, a Redis client) must not keep a finished command alive.
process.exit(code);
