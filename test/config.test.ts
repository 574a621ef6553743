import { expect } from 'chai';
import { ConfigError, loadConfig } from '../server/config.ts';
import { READ_TOOLSETS } from '../tools/toolsets.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).to.equal(8000);
    expect(c.host).to.equal('127.0.0.1');
    expect(c.publicUrl).to.equal('http://127.0.0.1:8000');
    expect(c.databaseUrl).to.equal('sqlite:./data/portfolio.db');
    expect(c.mcpWriteTools).to.equal(false);
    expect(c.mcpAccessTokenTtl).to.equal(30 * 86_400);
    expect(c.mcpToolsets).to.deep.equal([...READ_TOOLSETS]);
    expect(c.redisUrl).to.equal(undefined);
  });

  it('reads "false" as false for boolean flags', () => {
    expect(loadConfig({ MCP_WRITE_TOOLS: 'false' }).mcpWriteTools).to.equal(false);
    expect(loadConfig({ MCP_WRITE_TOOLS: 'true' }).mcpWriteTools).to.equal(true);
  });

  it('reads boolean flags in any case and as on/off', () => {
    for (const yes of ['TRUE', 'Yes', 'on', '1'])
      expect(loadConfig({ MCP_WRITE_TOOLS: yes }).mcpWriteTools, yes).to.equal(true);
    for (const no of ['False', 'NO', 'off', '0'])
      expect(loadConfig({ MCP_WRITE_TOOLS: no }).mcpWriteTools, no).to.equal(false);
  });

  it('lets MCP_ACCESS_TOKEN_TTL shorten MCP access tokens but not outlive the 30-day sign-in', () => {
    expect(loadConfig({ MCP_ACCESS_TOKEN_TTL: '3600' }).mcpAccessTokenTtl).to.equal(3600);
    expect(() => loadConfig({ MCP_ACCESS_TOKEN_TTL: String(31 * 86_400) })).to.throw(
      ConfigError,
      /MCP_ACCESS_TOKEN_TTL/,
    );
  });

  it('reads MCP_TOOLSETS as comma-separated toolset names', () => {
    expect(loadConfig({ MCP_TOOLSETS: 'metrics, Companies' }).mcpToolsets).to.deep.equal([
      'companies',
      'metrics',
    ]);
    expect(
      loadConfig({ MCP_TOOLSETS: 'companies,writes', MCP_WRITE_TOOLS: 'true' }).mcpToolsets,
    ).to.deep.equal(['companies', 'writes']);
  });

  it('refuses an unknown toolset, and writes without MCP_WRITE_TOOLS, naming MCP_TOOLSETS', () => {
    expect(() => loadConfig({ MCP_TOOLSETS: 'companies,portfolio' })).to.throw(
      ConfigError,
      /MCP_TOOLSETS: unknown toolset portfolio; the toolsets are companies, metrics/,
    );
    expect(() => loadConfig({ MCP_TOOLSETS: 'writes' })).to.throw(
      ConfigError,
      /MCP_TOOLSETS.*MCP_WRITE_TOOLS/,
    );
  });

  it('stops with a message naming each bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ PUBLIC_URL: 'not a url' })).to.throw(ConfigError, /PUBLIC_URL/);
    expect(() => loadConfig({ MCP_WRITE_TOOLS: 'maybe' })).to.throw(ConfigError, /MCP_WRITE_TOOLS/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).to.throw(ConfigError, /LOG_LEVEL/);
  });

  it('reads DOCUMENT_STORAGE_QUOTA_MB in MB, 10240 by default, and refuses a negative or fractional one', () => {
    expect(loadConfig({}).documentStorageQuotaBytes).to.equal(10240 * 1024 * 1024);
    expect(loadConfig({ DOCUMENT_STORAGE_QUOTA_MB: '50' }).documentStorageQuotaBytes).to.equal(
      50 * 1024 * 1024,
    );
    expect(loadConfig({ DOCUMENT_STORAGE_QUOTA_MB: '0' }).documentStorageQuotaBytes).to.equal(0);
    for (const bad of ['-1', '1.5', 'lots'])
      expect(() => loadConfig({ DOCUMENT_STORAGE_QUOTA_MB: bad }), bad).to.throw(
        ConfigError,
        /DOCUMENT_STORAGE_QUOTA_MB/,
      );
  });

  it('keeps founder links 30 days past the due date unless FOUNDER_LINK_DAYS_AFTER_DUE says otherwise', () => {
    expect(loadConfig({}).founderLinkDaysAfterDue).to.equal(30);
    expect(loadConfig({ FOUNDER_LINK_DAYS_AFTER_DUE: '0' }).founderLinkDaysAfterDue).to.equal(0);
    for (const bad of ['-1', '2.5', 'soon'])
      expect(() => loadConfig({ FOUNDER_LINK_DAYS_AFTER_DUE: bad }), bad).to.throw(
        ConfigError,
        /FOUNDER_LINK_DAYS_AFTER_DUE/,
      );
  });

  it('lets 30 requests a minute reach the founder page per link and address unless FOUNDER_PAGE_PER_MINUTE says otherwise', () => {
    expect(loadConfig({}).founderPagePerMinute).to.equal(30);
    expect(loadConfig({ FOUNDER_PAGE_PER_MINUTE: '5' }).founderPagePerMinute).to.equal(5);
    for (const bad of ['0', '-1', '2.5', 'many'])
      expect(() => loadConfig({ FOUNDER_PAGE_PER_MINUTE: bad }), bad).to.throw(
        ConfigError,
        /FOUNDER_PAGE_PER_MINUTE/,
      );
  });

  it('caps a parse at 512 MB unless DOCUMENT_PARSE_MEMORY_MB says otherwise, and refuses less than 128', () => {
    expect(loadConfig({}).documentParseMemoryMb).to.equal(512);
    expect(loadConfig({ DOCUMENT_PARSE_MEMORY_MB: '1024' }).documentParseMemoryMb).to.equal(1024);
    expect(() => loadConfig({ DOCUMENT_PARSE_MEMORY_MB: '64' })).to.throw(
      ConfigError,
      /DOCUMENT_PARSE_MEMORY_MB/,
    );
  });

  it('drops a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://pds.example.com/' }).publicUrl).to.equal(
      'https://pds.example.com',
    );
  });

  it('holds mail without SMTP_URL and sends it from no-reply at the public host by default', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://pds.example.com' });
    expect(c.smtpUrl).to.equal(undefined);
    expect(c.mailFrom).to.deep.equal({ name: 'Portfolio', address: 'no-reply@pds.example.com' });
    expect(loadConfig({}).mailFrom.address).to.equal('no-reply@localhost');
    expect(c.mailDelivery).to.equal(true);
    expect(c.reminders).to.equal(true);
  });

  it('takes SMTP_URL as smtp:// or smtps:// and MAIL_FROM as one address with an optional name', () => {
    const c = loadConfig({
      SMTP_URL: 'smtps://mailer:s3cret@smtp.example.com:465',
      MAIL_FROM: 'Acorn Capital <reports@acorn.example>',
    });
    expect(c.smtpUrl).to.equal('smtps://mailer:s3cret@smtp.example.com:465');
    expect(c.mailFrom).to.deep.equal({ name: 'Acorn Capital', address: 'reports@acorn.example' });
    expect(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).smtpUrl).to.equal('smtp://127.0.0.1:2525');
  });

  it('stops on a bad SMTP_URL naming the variable but not the password it holds', () => {
    for (const bad of ['https://mailer:s3cret@smtp.example.com', 'smtp.example.com:587', 'smtp://'])
      expect(() => loadConfig({ SMTP_URL: bad }), bad)
        .to.throw(ConfigError, /SMTP_URL: must be smtp:\/\/user:password@host:port/)
        .with.property('message')
        .that.does.not.contain('s3cret');
  });

  it('stops on a MAIL_FROM that is not one address', () => {
    for (const bad of ['reports', 'a@b.example, c@d.example', 'Reports <reports>'])
      expect(() => loadConfig({ MAIL_FROM: bad }), bad).to.throw(
        ConfigError,
        /MAIL_FROM: must be one address/,
      );
  });

  it('keeps the mail lease above the time one send may take', () => {
    const c = loadConfig({ MAIL_TIMEOUT_SECONDS: '100', MAIL_LEASE_SECONDS: '60' });
    expect(c.mailLeaseSeconds).to.equal(400);
  });
});
