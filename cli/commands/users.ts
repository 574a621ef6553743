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
  summary: 'create a user of a firm',
  options: {
    firm: { type: 'string', value: 'slug', required: true, description: 'the firm the user belongs to' },
    email: { type: 'string', value: 'email', required: true, description: 'the sign-in email' },
    password: {
      type: 'string',
      value: 'password',
      required: true,
      description: 'the sign-in password, at least 10 characters',
    },
    role: {
      type: 'string',
      value: 'role',
      required: true,
      choices: ROLES,
      description: 'what the user may do',
    },
    'first-name': { type: 'string', value: 'name', description: 'first name' },
    'last-name': { type: 'string', value: 'name', description: 'last name' },
    companies: {
      type: 'string',
      value: 'slug,slug',
      description: 'only these companies (comma-separated slugs); all companies when left out',
    },
    'no-documents': { type: 'boolean', description: 'no access to documents' },
    'cap-table': { type: 'boolean', description: 'may edit the cap table (admins may without it)' },
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
  summary: "list a firm's users",
  options: { firm: { type: 'string', value: 'slug', required: true, description: 'the firm' } },
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
