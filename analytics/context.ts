import type { Clock } from '../core/clock.ts';
import type { Principal } from '../core/principal.ts';
import type { ReadRepos } from '../db/repos/read.ts';

/** What the read-side figures are computed from: who asks, the repositories, and the time. */
export interface ReadContext {
  principal: Principal;
  repos: ReadRepos;
  clock: Clock;
}
