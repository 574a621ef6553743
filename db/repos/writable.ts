// The way from a reader's repositories back to the writing ones: for services/ (and the server's own
// loops) only. `.dependency-cruiser.cjs` refuses this import to tools/, so a tool writes through a service.
import type { Repos } from './index.ts';
import type { ReadRepos } from './read.ts';

/** The full repositories behind `repos`: every `ReadRepos` the server hands out is one. */
export function writable(repos: ReadRepos): Repos {
  if (!('changeLog' in repos)) throw new Error('these repositories were built read-only');
  return repos as unknown as Repos;
}
