import { createTransport } from 'nodemailer';
import type { Mailbox } from './address.ts';

/** A message as it leaves: the outbox row's recipient and bodies. */
export interface OutgoingMail {
  to: Mailbox;
  subject: string;
  text: string;
  html: string;
}

/** Why a send failed, as the outbox records it. */
export interface SendFailure {
  error: string;
  /** The server refused the recipient for good (a 5xx answer to RCPT TO): trying again cannot help. */
  permanent: boolean;
}

export interface MailSender {
  /** Resolves with the Message-ID the message went out with; rejects as `sendFailure` describes. */
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): void;
}

export interface SmtpOptions {
  /** SMTP_URL: smtp://user:password@host:port or smtps://…; query parameters are nodemailer's options. */
  url: string;
  from: Mailbox;
  /** Each of connecting, the server's greeting and every later exchange must take less than this. */
  timeoutMs: number;
}

/** Sends through the SMTP server of SMTP_URL over a small pool of connections kept between messages. */
export function smtpSender(options: SmtpOptions): MailSender {
  const transport = createTransport({
    url: options.url,
    pool: true,
    maxConnections: 3,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  return {
    async send(mail) {
      const info = await transport.sendMail({
        from: options.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // RFC 3834: sent by a program, so that mail systems send no out-of-office answers to it.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      return { messageId: info.messageId };
    },
    close: () => transport.close(),
  };
}

/** What nodemailer's errors carry besides the message. */
interface SmtpError {
  message?: unknown;
  code?: unknown;
  command?: unknown;
  responseCode?: unknown;
  response?: unknown;
}

/** The longest error kept in the outbox: a server's answer can be long, and only its start helps. */
const MAX_ERROR_LENGTH = 500;

/** A failed send described for the outbox: the SMTP command and the server's answer when there was one. */
export function sendFailure(err: unknown): SendFailure {
  const e = (err ?? {}) as SmtpError;
  const answer = typeof e.response === 'string' ? e.response : String(e.message ?? err);
  const command = typeof e.command === 'string' ? `${e.command}: ` : '';
  const code = typeof e.code === 'string' ? ` (${e.code})` : '';
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : 0;
  return {
    error: `${command}${answer}${code}`.replace(/\s+/g, ' ').slice(0, MAX_ERROR_LENGTH),
    permanent: e.code === 'EENVELOPE' && responseCode >= 500 && responseCode < 600,
  };
}
