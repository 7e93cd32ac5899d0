import { ErrorCodes } from '@browseragentprotocol/protocol';
import { describe, expect, it } from 'vitest';
import { DomainPolicy, domainNotAllowed, urlMatchesHosts } from '../packages/server-playwright/src/security/domainPolicy.js';
import { hostOfUrl, normalizeHost, parseHostPattern } from '../packages/server-playwright/src/security/policyHosts.js';

describe('host normalisation', () => {
  it.each([
    ['DENIED.Example', 'denied.example'],
    ['denied.example.', 'denied.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['ｄｅｎｉｅｄ.example', 'denied.example'],
    ['%64enied.example', 'denied.example'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['[FD00:EC2::254]', 'fd00:ec2::254'],
  ])('%s → %s', (raw, host) => {
    expect(normalizeHost(raw)).toBe(host);
  });

  it('refuses what is not a host', () => {
    for (const raw of ['', 'a b', 'user@host', 'host:80', 'a/b', '[zz::1]']) expect(() => normalizeHost(raw), raw).toThrow();
  });

  it.each([
    ['http://user:pw@Denied.Example./x', 'denied.example'],
    ['http://allowed.example@denied.example/', 'denied.example'],
    ['http:\\\\denied.example\\x', 'denied.example'],
    ['https://[::ffff:7f00:1]:8443/', '127.0.0.1'],
    ['ws://bücher.example/socket', 'xn--bcher-kva.example'],
    ['wss://0x7f.1/', '127.0.0.1'],
  ])('the host of %s is %s', (url, host) => {
    expect(hostOfUrl(url)).toBe(host);
  });

  it('URLs the browser does not connect for have no host', () => {
    for (const url of ['data:text/html,hi', 'about:blank', 'blob:http://a.example/1', 'javascript:1', 'file:///etc/passwd', 'not a url']) {
      expect(hostOfUrl(url), url).toBeNull();
    }
  });
});

describe('host patterns', () => {
  it('parse to names, subdomain wildcards and address ranges, normalised', () => {
    expect(parseHostPattern('Bücher.Example.')).toMatchObject({ kind: 'host', host: 'xn--bcher-kva.example' });
    expect(parseHostPattern('*.Example.com')).toMatchObject({ kind: 'subdomains', suffix: '.example.com', text: '*.example.com' });
    expect(parseHostPattern('10.0.0.0/8')).toMatchObject({ kind: 'range', text: '10.0.0.0/8' });
    expect(parseHostPattern('fd00::/8')).toMatchObject({ kind: 'range', text: 'fd00::/8' });
    expect(parseHostPattern('2130706433')).toMatchObject({ kind: 'range', text: '127.0.0.1' });
    expect(parseHostPattern('[::1]')).toMatchObject({ kind: 'range', text: '::1' });
  });

  it('refuse invalid patterns with a message naming them', () => {
    for (const text of ['*', '*.', 'a*b.example', '*.10.0.0.1', '10.0.0.0/33', 'fd00::/129', 'example.com/8', '10.0.0.0/x', 'user@host', 'host:80', '']) {
      expect(() => parseHostPattern(text), text).toThrow(`Invalid domain pattern "${text}"`);
    }
  });

  it('match as documented: a name only itself, a wildcard only subdomains, ranges by address', () => {
    const cases: [string[], string, boolean][] = [
      [['example.com'], 'https://example.com/', true],
      [['example.com'], 'https://www.example.com/', false],
      [['example.com'], 'https://notexample.com/', false],
      [['*.example.com'], 'https://www.example.com/', true],
      [['*.example.com'], 'https://a.b.example.com/', true],
      [['*.example.com'], 'https://example.com/', false],
      [['*.example.com'], 'https://evilexample.com/', false],
      [['*.example.com'], 'https://example.com.evil.test/', false],
      [['10.0.0.0/8'], 'http://10.200.3.4/', true],
      [['10.0.0.0/8'], 'http://11.0.0.1/', false],
      [['10.0.0.0/8'], 'http://[::ffff:10.1.2.3]/', true],
      [['127.0.0.1'], 'http://2130706433/', true],
      [['127.0.0.1'], 'http://anything.localhost/', true],
      [['fd00::/8'], 'http://[fd12::1]/', true],
      [['fd00::/8'], 'http://10.0.0.1/', false],
      [['bücher.example'], 'http://xn--bcher-kva.example/', true],
      [['xn--caf-dma.example'], 'http://café.example/', true],
      [['*', 'not a pattern'], 'http://example.com/', false],
    ];
    for (const [patterns, url, expected] of cases) expect(urlMatchesHosts(patterns, url), `${patterns.join(',')} ~ ${url}`).toBe(expected);
  });
});

describe('DomainPolicy', () => {
  const allowList = DomainPolicy.create({ allow: ['allowed.example', '*.allowed.example'] });
  const denyList = DomainPolicy.create({ deny: ['denied.example', '*.denied.example', '10.0.0.0/8'] });

  it('an empty allow list lets any host not blocked through; a user policy restricts', () => {
    const open = DomainPolicy.create({});
    expect(open.restricts).toBe(false);
    expect(open.refusal('https://anything.example/', 'navigation')).toBeNull();
    expect(allowList.restricts).toBe(true);
    expect(denyList.restricts).toBe(true);
    expect(denyList.refusal('https://anything.example/', 'navigation')).toBeNull();
  });

  it('an allow list refuses every other host, in any spelling', () => {
    expect(allowList.refusal('https://allowed.example/', 'navigation')).toBeNull();
    expect(allowList.refusal('https://www.allowed.example/', 'request')).toBeNull();
    for (const url of ['https://denied.example/', 'https://allowed.example.denied.example/', 'http://127.0.0.1/', 'http://0x7f000001/', 'http://[::1]/']) {
      expect(allowList.refusal(url, 'request'), url).toMatch(/is not on the allowed list$/);
    }
  });

  it('a block list refuses its hosts however they are written; deny wins over allow', () => {
    for (const url of ['http://DENIED.example./', 'http://user@denied.example/', 'http://a.b.denied.example/', 'http://10.1.2.3/', 'http://167837955/', 'http://[::ffff:a01:203]/']) {
      expect(denyList.refusal(url, 'request'), url).toMatch(/matches the blocked pattern/);
    }
    const both = DomainPolicy.create({ allow: ['denied.example'], deny: ['denied.example'] });
    expect(both.refusal('https://denied.example/', 'navigation')).toBe('denied.example matches the blocked pattern "denied.example"');
  });

  it("a token's allowed list narrows the server's: a host must pass both", () => {
    const narrowed = denyList.narrow(['allowed.example', 'denied.example']);
    expect(narrowed.refusal('https://allowed.example/', 'navigation')).toBeNull();
    expect(narrowed.refusal('https://denied.example/', 'navigation')).toMatch(/blocked pattern/);
    expect(narrowed.refusal('https://elsewhere.example/', 'navigation')).toBe("elsewhere.example is not on the token's allowed list");
    expect(allowList.narrow(['elsewhere.example']).refusal('https://elsewhere.example/', 'navigation')).toBe('elsewhere.example is not on the allowed list');
    expect(denyList.narrow(undefined)).toBe(denyList);
    expect(DomainPolicy.create({}).narrow(['a.example']).restricts).toBe(true);
  });

  it('cloud metadata services and unspecified addresses are refused without any policy', () => {
    const open = DomainPolicy.create({});
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://169.254.170.2/v2/credentials',
      'http://169.254.1.1/',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://METADATA.GOOG./',
      'http://2852039166/',
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[fe80::1]/',
    ]) {
      expect(open.refusal(url, 'request'), url).toMatch(/cloud metadata/);
    }
    for (const url of ['http://0.0.0.0:8080/', 'http://0/', 'http://[::]/']) expect(open.refusal(url, 'request'), url).toMatch(/unspecified address/);
    expect(DomainPolicy.create({ allow: ['169.254.0.0/16'] }).refusal('http://169.254.169.254/', 'request')).toMatch(/cloud metadata/);
  });

  it('navigations must be http(s) or about:blank; requests without a host are never refused', () => {
    const open = DomainPolicy.create({});
    expect(open.refusal('about:blank', 'navigation')).toBeNull();
    for (const url of ['file:///etc/passwd', 'data:text/html,hi', 'javascript:alert(1)', 'view-source:https://example.com/', 'chrome://settings', 'about:config', 'ws://example.com/']) {
      expect(open.refusal(url, 'navigation'), url).toMatch(/URLs cannot be opened/);
    }
    expect(open.refusal('not a url', 'navigation')).toBe('"not a url" is not a valid URL');
    expect(allowList.refusal('data:text/html,hi', 'request')).toBeNull();
    expect(allowList.refusal('blob:https://denied.example/1', 'request')).toBeNull();
  });

  it('judges resolved addresses: any refused address refuses the name, and the refusal is remembered', () => {
    const policy = DomainPolicy.create({ deny: ['10.0.0.0/8'] });
    expect(policy.refusalOfHost('rebind.example')).toBeNull();
    expect(policy.refusalOfHost('rebind.example', ['93.184.216.34'])).toBeNull();
    expect(policy.refusal('https://rebind.example/', 'navigation')).toBeNull();
    expect(policy.refusalOfHost('rebind.example', ['93.184.216.34', '10.0.0.7'])).toBe('rebind.example (10.0.0.7) matches the blocked pattern "10.0.0.0/8"');
    expect(policy.refusal('https://rebind.example/x', 'navigation')).toBe('rebind.example (10.0.0.7) matches the blocked pattern "10.0.0.0/8"');
    expect(policy.refusalOfHost('imds.example', ['169.254.169.254'])).toBe('imds.example resolves to 169.254.169.254, which is a cloud metadata or link-local address');
  });

  it('IP and CIDR allow patterns admit names by the address they resolve to', () => {
    const policy = DomainPolicy.create({ allow: ['10.0.0.0/8'] });
    expect(policy.refusalOfHost('intranet.example')).toBeNull();
    expect(policy.refusalOfHost('intranet.example', ['10.1.1.1'])).toBeNull();
    expect(policy.refusalOfHost('outside.example', ['93.184.216.34'])).toBe('outside.example (93.184.216.34) is not on the allowed list');
    expect(policy.refusalOfHost('service.localhost')).toBe('service.localhost (127.0.0.1) is not on the allowed list');
  });

  it('admits a host only at the addresses the policy allows; one blocked address refuses it', () => {
    expect(DomainPolicy.create({ allow: ['127.0.0.1'] }).admit('app.localhost')).toEqual({ addresses: ['127.0.0.1'] });
    expect(DomainPolicy.create({ allow: ['app.localhost'] }).admit('app.localhost')).toEqual({ addresses: ['127.0.0.1', '::1'] });
    expect(DomainPolicy.create({ allow: ['10.0.0.0/8'] }).admit('dual.example', ['10.0.0.1', 'fd00::1'])).toEqual({ addresses: ['10.0.0.1'] });
    expect(DomainPolicy.create({ deny: ['::1'] }).admit('localhost')).toEqual({ refusal: 'localhost (::1) matches the blocked pattern "::1"' });
    expect(DomainPolicy.create({}).admit('unresolved.example')).toEqual({ addresses: [] });
  });

  it('refuses invalid patterns when it is made', () => {
    expect(() => DomainPolicy.create({ deny: ['*.*.example'] })).toThrow('Invalid domain pattern "*.*.example"');
    expect(() => DomainPolicy.create({}).narrow(['10.0.0.0/99'])).toThrow('Invalid domain pattern');
  });

  it('a refused navigation is -32041 naming the URL, the host and why', () => {
    const error = domainNotAllowed('http://denied.example/x', 'denied.example matches the blocked pattern "denied.example"');
    expect(error.code).toBe(ErrorCodes.DomainNotAllowed);
    expect(error.message).toBe('Domain not allowed: denied.example matches the blocked pattern "denied.example".');
    expect(error.data).toMatchObject({ retryable: false, details: { url: 'http://denied.example/x', host: 'denied.example' } });
    expect(error.data.recoveryHint).toContain('--allowed-domain');
  });
});
