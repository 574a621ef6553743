import { createUser, listUsers, ROLES, type UserSummary } from '../../auth/accounts.ts';
import { defineCommand, output, table } from '../command.ts';

function access(u: UserSummary): string {
  const parts = [u.all_companies ? 'all companies' : u.companies.join(',') || 'no companies'];
  if (u.can_view_documents) parts.push('documents');
  if (u.can_edit_cap_table) parts.push('cap table');
  return parts.join('; ');
}

export const usersCreate = defineCommand({
  name: 'users create',
  usage:
    '--firm S --email E --password P --role admin|editor|viewer [--first-name F --last-name L] ' +
    '[--companies slug,slug] [--no-documents] [--cap-table] [--json]',
  summary: 'create a user of a firm',
  options: {
    firm: { type: 'string', required: true },
    email: { type: 'string', required: true },
    password: { type: 'string', required: true },
    role: { type: 'string', required: true, choices: ROLES },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    companies: { type: 'string' },
    'no-documents': { type: 'boolean' },
    'cap-table': { type: 'boolean' },
  },
  async run(ctx, args) {
    const companies = args.string('companies');
    const user = await createUser(ctx.repos, ctx.clock, {
      firm: args.need('firm'),
      email: args.need('email'),
      password: args.need('password'),
      role: args.need('role'),
      firstName: args.string('first-name'),
      lastName: args.string('last-name'),
      companies: companies === undefined ? null : companies.split(','),
      documents: !args.flag('no-documents'),
      capTable: args.flag('cap-table') ? true : undefined,
    });
    output(ctx, user, () => [`created ${user.role} ${user.email} (${access(user)}), id ${user.id}`]);
  },
});

export const usersList = defineCommand({
  name: 'users list',
  usage: '--firm S [--json]',
  summary: "list a firm's users",
  options: { firm: { type: 'string', required: true } },
  async run(ctx, args) {
    const users = await listUsers(ctx.repos, args.need('firm'));
    output(ctx, users, () =>
      table(
        ['EMAIL', 'ROLE', 'ACTIVE', 'NAME', 'ACCESS'],
        users.map((u) => [
          u.email,
          u.role,
          u.is_active ? 'yes' : 'no',
          `${u.first_name} ${u.last_name}`.trim() || '-',
          access(u),
        ]),
        'no users in this firm yet: create one with "portfolio users create"',
      ),
    );
  },
});
