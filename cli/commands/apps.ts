import { createApplication, listApplications, revokeApplication } from '../../auth/accounts.ts';
import { defineCommand, output, table } from '../command.ts';

export const appsCreate = defineCommand({
  name: 'apps create',
  summary: "create an OAuth application (client credentials) acting with the user's permissions",
  options: {
    firm: {
      type: 'string',
      value: 'slug',
      required: true,
      description: 'the firm the application belongs to',
    },
    user: {
      type: 'string',
      value: 'email',
      required: true,
      description: 'the member of the firm whose permissions it acts with',
    },
    name: { type: 'string', value: 'name', required: true, description: 'a name to recognise it by' },
  },
  async run(ctx, args) {
    const app = await createApplication(ctx.repos, ctx.clock, {
      firm: args.need('firm'),
      userEmail: args.need('user'),
      name: args.need('name'),
      maxApplications: ctx.config.oauthApplicationsPerUser,
    });
    output(ctx, { client_id: app.client_id, client_secret: app.client_secret }, () => [
      `client_id:     ${app.client_id}`,
      `client_secret: ${app.client_secret}`,
      'The secret is shown only this once; it is stored as a hash.',
    ]);
  },
});

export const appsList = defineCommand({
  name: 'apps list',
  summary: "list a firm's OAuth applications",
  options: { firm: { type: 'string', value: 'slug', required: true, description: 'the firm' } },
  async run(ctx, args) {
    const apps = await listApplications(ctx.repos, args.need('firm'));
    output(ctx, apps, () =>
      table(
        ['CLIENT_ID', 'USER', 'CREATED', 'REVOKED', 'NAME'],
        apps.map((a) => [a.client_id, a.user_email ?? a.user_id, a.created_at, a.revoked_at ?? '-', a.name]),
        'no applications in this firm yet: create one with "portfolio apps create"',
      ),
    );
  },
});

export const appsRevoke = defineCommand({
  name: 'apps revoke',
  summary: 'revoke an application and every token issued to it',
  options: {},
  arguments: { CLIENT_ID: 'the client_id of the application, as "apps list" shows it' },
  async run(ctx, args) {
    const clientId = args.positionals[0]!;
    await revokeApplication(ctx.repos, ctx.clock, clientId);
    output(ctx, { client_id: clientId, revoked: true }, () => [`revoked application ${clientId}`]);
  },
});
