import type { MailRow, MailStatus } from '../../db/repos/mail.ts';
import { type CommandContext, defineCommand, output } from '../command.ts';
import { CliError } from '../errors.ts';

const STATUSES: readonly MailStatus[] = ['pending', 'held', 'sent', 'failed'];
const DEFAULT_LIMIT = 20;

/** A message as the command shows it; the bodies only in `outbox show`. */
function summary(m: MailRow, firmSlug: string | undefined) {
  return {
    id: m.id,
    firm: firmSlug ?? m.firm_id,
    kind: m.kind,
    status: m.status,
    to: m.to_address,
    to_name: m.to_name,
    subject: m.subject,
    link: m.link,
    queued_at: m.created_at,
    sent_at: m.sent_at,
    attempts: m.attempts,
    last_error: m.last_error,
    report_id: m.report_id,
    request_id: m.request_id,
  };
}
type Summary = ReturnType<typeof summary>;

const recipient = (s: Summary) => (s.to_name ? `${s.to_name} <${s.to}>` : s.to);

/** A few lines a message: what and to whom, then the link to open (the point of reading a held outbox). */
function block(s: Summary): string[] {
  const lines = [
    `${s.queued_at}  ${s.status}  ${s.kind}  ${s.firm}  ${s.id}`,
    `  to:      ${recipient(s)}`,
    `  subject: ${s.subject}`,
  ];
  if (s.link) lines.push(`  link:    ${s.link}`);
  if (s.last_error) lines.push(`  error:   ${s.last_error} (attempt ${s.attempts})`);
  return lines;
}

async function firmSlugs(ctx: CommandContext): Promise<Map<string, string>> {
  return new Map((await ctx.repos.firms.list()).map((f) => [f.id, f.slug]));
}

export const outboxList = defineCommand({
  name: 'outbox',
  summary: 'list outbound mail newest first, with the founder link of each message not yet sent',
  options: {
    firm: { type: 'string', value: 'slug', description: "only this firm's messages" },
    status: {
      type: 'string',
      value: 'status',
      choices: STATUSES,
      description: 'only messages in this state',
    },
    limit: {
      type: 'string',
      value: 'n',
      integer: { min: 1, max: 1000 },
      description: `how many messages, 1 to 1000 (default ${DEFAULT_LIMIT})`,
    },
  },
  async run(ctx, args) {
    const slug = args.string('firm');
    const firm = slug === undefined ? undefined : await ctx.repos.firms.getBySlug(slug);
    if (slug !== undefined && !firm)
      throw new CliError(`no firm with slug "${slug}"; "portfolio firms list" shows them`);
    const status = args.string('status') as MailStatus | undefined;
    const rows = await ctx.repos.mail.list({
      firmId: firm?.id,
      statuses: status ? [status] : undefined,
      limit: args.int('limit') ?? DEFAULT_LIMIT,
    });
    const slugs = await firmSlugs(ctx);
    const messages = rows.map((m) => summary(m, slugs.get(m.firm_id)));
    output(ctx, messages, () =>
      messages.length === 0
        ? ['the outbox is empty: mail appears here when a request is sent, reminded or answered']
        : messages.flatMap((s, i) => (i === 0 ? block(s) : ['', ...block(s)])),
    );
  },
});

export const outboxShow = defineCommand({
  name: 'outbox show',
  summary: 'show one outbound message in full: its headers, its state and its text',
  options: {},
  arguments: { ID: 'the id of the message, as "portfolio outbox" shows it' },
  async run(ctx, args) {
    const id = args.positionals[0]!;
    const m = await ctx.repos.mail.get(id);
    if (!m) throw new CliError(`no message ${id} in the outbox; "portfolio outbox" lists them`);
    const s = summary(m, (await firmSlugs(ctx)).get(m.firm_id));
    output(ctx, { ...s, text: m.text_body, html: m.html_body }, () => [
      `id:       ${s.id}`,
      `firm:     ${s.firm}`,
      `status:   ${s.status}${s.sent_at ? ` (sent ${s.sent_at})` : ''}`,
      `kind:     ${s.kind}`,
      `to:       ${recipient(s)}`,
      `subject:  ${s.subject}`,
      `queued:   ${s.queued_at}`,
      `attempts: ${s.attempts}${s.last_error ? `, last error: ${s.last_error}` : ''}`,
      ...(s.link ? [`link:     ${s.link}`] : []),
      '',
      m.text_body.trimEnd(),
    ]);
  },
});

export const outboxSend = defineCommand({
  name: 'outbox send',
  summary: 'queue a held message for sending, once SMTP_URL is set (held messages are never sent otherwise)',
  options: {},
  arguments: { ID: 'the id of a held message, as "portfolio outbox --status held" shows it' },
  async run(ctx, args) {
    const id = args.positionals[0]!;
    if (!(await ctx.repos.mail.release(id, ctx.clock.now().toISOString()))) {
      const m = await ctx.repos.mail.get(id);
      throw new CliError(
        m
          ? `message ${id} is ${m.status}, not held; only a held message can be queued again`
          : `no message ${id} in the outbox; "portfolio outbox" lists them`,
      );
    }
    output(ctx, { id, status: 'pending' }, () => [
      `message ${id} is queued; a server with SMTP_URL set sends it${ctx.config.smtpUrl ? '' : ' (SMTP_URL is not set here)'}`,
    ]);
  },
});
