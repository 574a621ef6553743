import { isIP } from 'node:net';
import addressparser from 'nodemailer/lib/addressparser';

/** A sender or recipient: the display name may be empty. */
export interface Mailbox {
  name: string;
  address: string;
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;

/** One mailbox (`a@b.example` or `Name <a@b.example>`), or undefined when the text is not exactly one. */
export function parseMailbox(text: string): Mailbox | undefined {
  const parsed = addressparser(text);
  if (parsed.length !== 1) return undefined;
  const [one] = parsed;
  if (!one || one.group !== undefined || !ADDRESS.test(one.address)) return undefined;
  return { name: one.name, address: one.address };
}

/** The sender when MAIL_FROM is not set: no-reply at the public host (`localhost` for an address). */
export function defaultSender(publicUrl: string): Mailbox {
  const host = new URL(publicUrl).hostname.replace(/^\[|\]$/g, '');
  return { name: 'Portfolio', address: `no-reply@${isIP(host) ? 'localhost' : host}` };
}

/** Whether a value is an SMTP URL nodemailer takes: smtp:// or smtps://, with a host. */
export function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '';
  } catch {
    return false;
  }
}
