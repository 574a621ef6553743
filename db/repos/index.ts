import type { Knex } from 'knex';
import { companiesRepo } from './companies.ts';
import { firmsRepo } from './firms.ts';
import { applicationsRepo, tokensRepo } from './tokens.ts';
import { usersRepo } from './users.ts';

/** Every repository over one database handle; the only code that writes SQL lives behind these. */
export function createRepos(db: Knex) {
  return {
    db,
    firms: firmsRepo(db),
    users: usersRepo(db),
    companies: companiesRepo(db),
    tokens: tokensRepo(db),
    applications: applicationsRepo(db),
  };
}
export type Repos = ReturnType<typeof createRepos>;
