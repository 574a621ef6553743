import {
  createPersonalToken,
  listPersonalTokens,
  MAX_TOKEN_DAYS,
  revokePersonalToken,
} from '../../auth/accounts.ts';
import { defineCommand, output, table } from '../command.ts';

export const tokensCreate = defineCommand({
  name: 'tokens create',
  summary: 'create a personal access token (REST and MCP) for clients that cannot do OAuth',
  options: {
    user: { type: 'string', value: 'email', required: true, description: 'the user the token acts as' },
    days: {
      type: 'string',
      value: 'n',
      integer: { min: 1, max: MAX_TOKEN_DAYS },
      description: `days until it expires, 1 to ${MAX_TOKEN_DAYS} (default ${MAX_TOKEN_DAYS})`,
    },
    name: { type: 'string', value: 'name', description: 'a name to recognise it by' },
  },
  async run(ctx, args) {
    const created = await createPersonalToken(ctx.repos, ctx.clock, {
      email: args.need('user'),
      days: args.int('days'),
      name: args.string('name'),
    });
    output(ctx, { token: created.token, expires_at: created.expires_at, id: created.id }, () => [
      `token:      ${created.token}`,
      `expires_at: ${created.expires_at}`,
      `id:         ${created.id} (revoke with "portfolio tokens revoke ${created.id}")`,
      'The token is shown only this once; it is stored as a hash.',
    ]);
  },
});

export const tokensList = defineCommand({
  name: 'tokens list',
  summary: "list a user's personal access tokens",
  options: { user: { type: 'string', value: 'email', required: true, description: 'the user' } },
  async run(ctx, args) {
    const tokens = await listPersonalTokens(ctx.repos, args.need('user'));
    const now = ctx.clock.now().toISOString();
    const state = (t: (typeof tokens)[number]) =>
      t.revoked_at ? 'revoked' : t.expires_at <= now ? 'expired' : 'active';
    output(ctx, tokens, () =>
      table(
        ['ID', 'STATE', 'EXPIRES', 'LAST USED', 'NAME'],
        tokens.map((t) => [t.id, state(t), t.expires_at, t.last_used_at ?? '-', t.name ?? '']),
        'no personal access tokens: create one with "portfolio tokens create"',
      ),
    );
  },
});

export const tokensRevoke = defineCommand({
  name: 'tokens revoke',
  summary: 'revoke a personal access token',
  options: {},
  arguments: { ID: 'the id of the token, as "tokens list" shows it' },
  async run(ctx, args) {
    const id = args.positionals[0]!;
    await revokePersonalToken(ctx.repos, ctx.clock, id);
    output(ctx, { id, revoked: true }, () => [`revoked token ${id}`]);
  },
});
