import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** How the server answers: take every message, refuse them for now (451), or refuse the recipient (550). */
export type SmtpMode = 'accept' | 'busy' | 'no-such-user';

export interface ReceivedMail {
  /** The envelope: the addresses of MAIL FROM and RCPT TO. */
  from: string;
  to: string[];
  /** The user who authenticated, when the client logged in. */
  user: string | undefined;
  parsed: ParsedMail;
}

export interface TestSmtp {
  port: number;
  /** SMTP_URL for this server, with the test's credentials. */
  url: string;
  received: ReceivedMail[];
  setMode(mode: SmtpMode): void;
  close(): Promise<void>;
}

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'mailer-password';

/** A failure with the SMTP answer code smtp-server sends. */
function answer(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** A real SMTP server on loopback (plain, with AUTH) that parses what it receives with mailparser. */
export async function startSmtp(mode: SmtpMode = 'accept'): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  let current = mode;
  const options: SMTPServerOptions = {
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD)
        callback(null, { user: auth.username });
      else callback(answer(535, 'authentication failed'));
    },
    onRcptTo(_address, _session, callback) {
      if (current === 'no-such-user') callback(answer(550, 'no such user here'));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          if (current === 'busy') return callback(answer(451, 'try again later'));
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            user: typeof session.user === 'string' ? session.user : undefined,
            parsed,
          });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    received,
    setMode(mode) {
      current = mode;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An SMTP_URL where nothing listens: a port just bound and released. */
export async function downSmtpUrl(): Promise<string> {
  const smtp = await startSmtp();
  await smtp.close();
  return `smtp://127.0.0.1:${smtp.port}`;
}
