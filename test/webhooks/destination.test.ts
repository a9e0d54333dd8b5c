/**
 * Guarantees of the webhook destination policy (no server-side request forgery): deployed, only
 * https to public addresses, with every private, loopback, link-local, unique-local, CGNAT,
 * multicast, unspecified, reserved and cloud-metadata address refused — as an IP literal in
 * any spelling, in IPv6 forms that embed one (mapped, NAT64, 6to4), as a metadata name, or as a
 * hostname any of whose DNS answers is one; no credentials in the URL; http to loopback only
 * with the local setting.
 */
import { BLOCKED_ADDRESS_RULE, checkDestination, DestinationRefusedError, isRefusedAddress, type Lookup, type RefusalReason } from '../../functions/src/webhooks/destination';

const deployed = { allowLoopbackHttp: false };
const local = { allowLoopbackHttp: true };
const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** A resolver answering from a table; anything else does not resolve. */
function lookupFrom(table: Record<string, string[]>): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

async function refusal(url: string, options: { allowLoopbackHttp: boolean; lookup?: Lookup }): Promise<RefusalReason> {
  try {
    await checkDestination(url, options);
  } catch (err) {
    if (err instanceof DestinationRefusedError) {
      expect(err.code).toBe('invalid_argument');
      return err.reason;
    }
    throw err;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('refused address ranges', () => {
  const refusedV4 = [
    '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.100.100.200', '100.127.255.254', '127.0.0.1', '127.1.2.3',
    '169.254.0.1', '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.0.0.1', '192.0.2.1', '192.88.99.1', '192.168.1.1',
    '198.18.0.1', '198.19.255.255', '198.51.100.1', '203.0.113.1', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
  ];
  const refusedV6 = [
    '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::127.0.0.1',
    '64:ff9b::10.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::1', '2002:a00:1::1', '2002:7f00:1::', '100::1', '2001::1', '2001:db8::1',
    'fc00::1', 'fd00:ec2::254', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1', 'ff02::1', 'ff05::1:3',
  ];
  it.each([...refusedV4, ...refusedV6])('refuses %s', (address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([PUBLIC_V4, '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.255.255', PUBLIC_V6, '::ffff:93.184.215.14', '64:ff9b::808:808', '2002:808:808::1'])(
    'admits the public address %s',
    (address) => {
      expect(isRefusedAddress(address)).toBe(false);
    },
  );

  it('refuses what is not an address at all', () => {
    expect(isRefusedAddress('example.com')).toBe(true);
  });
});

describe('checkDestination, deployed', () => {
  it('admits https to a public host and reports the addresses it resolved to', async () => {
    const lookup = lookupFrom({ 'hooks.example.com': [PUBLIC_V4, PUBLIC_V6] });
    const checked = await checkDestination('https://hooks.example.com/tessera?x=1', { ...deployed, lookup });
    expect(checked.url.href).toBe('https://hooks.example.com/tessera?x=1');
    expect(checked.addresses).toEqual([PUBLIC_V4, PUBLIC_V6]);
    expect(lookup.calls).toEqual(['hooks.example.com']);
  });

  it('admits https to a public IP literal without resolving it', async () => {
    const lookup = lookupFrom({});
    await expect(checkDestination(`https://${PUBLIC_V4}:8443/hook`, { ...deployed, lookup })).resolves.toMatchObject({ addresses: [PUBLIC_V4] });
    await expect(checkDestination(`https://[${PUBLIC_V6}]/hook`, { ...deployed, lookup })).resolves.toMatchObject({ addresses: [PUBLIC_V6] });
    expect(lookup.calls).toEqual([]);
  });

  it('refuses http, even to a public host', async () => {
    expect(await refusal(`http://${PUBLIC_V4}/hook`, deployed)).toBe('scheme');
    expect(await refusal('http://hooks.example.com/hook', { ...deployed, lookup: lookupFrom({ 'hooks.example.com': [PUBLIC_V4] }) })).toBe('scheme');
  });

  it('refuses other schemes and unreadable URLs', async () => {
    expect(await refusal('ftp://hooks.example.com/', deployed)).toBe('scheme');
    expect(await refusal('file:///etc/passwd', deployed)).toBe('scheme');
    expect(await refusal('not a url', deployed)).toBe('invalid_url');
    expect(await refusal(`https://hooks.example.com/${'a'.repeat(2100)}`, deployed)).toBe('invalid_url');
  });

  it('refuses credentials in the URL', async () => {
    expect(await refusal(`https://user:pass@${PUBLIC_V4}/hook`, deployed)).toBe('credentials');
    expect(await refusal(`https://user@${PUBLIC_V4}/hook`, deployed)).toBe('credentials');
  });

  it.each([
    'https://127.0.0.1/', 'https://10.1.2.3/', 'https://169.254.169.254/computeMetadata/v1/', 'https://0x7f.1/', 'https://2130706433/', 'https://0177.0.0.1/',
    'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://[::ffff:a9fe:a9fe]/', 'https://[fd00:ec2::254]/', 'https://[fe80::1]/', 'https://100.64.1.1/', 'https://0.0.0.0/',
  ])('refuses the IP literal in %s', async (url) => {
    expect(await refusal(url, { ...deployed, lookup: lookupFrom({}) })).toBe('blocked_address');
  });

  it.each(['metadata.google.internal', 'METADATA.GOOGLE.INTERNAL.', 'metadata.goog', 'metadata', 'instance-data'])('refuses the metadata name %s without resolving it', async (host) => {
    const lookup = lookupFrom({ [host.toLowerCase().replace(/\.$/, '')]: [PUBLIC_V4] });
    expect(await refusal(`https://${host}/computeMetadata/v1/`, { ...deployed, lookup })).toBe('blocked_name');
    expect(lookup.calls).toEqual([]);
  });

  it('refuses a hostname resolving to a private address, even beside a public one', async () => {
    const lookup = lookupFrom({ 'internal.example.com': ['10.0.0.7'], 'mixed.example.com': [PUBLIC_V4, '192.168.1.10'], 'v6.example.com': ['fd00::1'], 'localhost': ['127.0.0.1', '::1'] });
    expect(await refusal('https://internal.example.com/hook', { ...deployed, lookup })).toBe('blocked_address');
    expect(await refusal('https://mixed.example.com/hook', { ...deployed, lookup })).toBe('blocked_address');
    expect(await refusal('https://v6.example.com/hook', { ...deployed, lookup })).toBe('blocked_address');
    expect(await refusal('https://localhost:3000/hook', { ...deployed, lookup })).toBe('blocked_address');
  });

  it('names the rule in its refusal, never the address the host resolved to', async () => {
    const lookup = lookupFrom({ 'internal.example.com': ['10.1.2.3'], 'v6.example.com': ['fd00:ec2::254'] });
    for (const url of ['https://internal.example.com/hook', 'https://v6.example.com/hook']) {
      const refused = await checkDestination(url, { ...deployed, lookup }).catch((err: DestinationRefusedError) => err);
      expect(refused).toBeInstanceOf(DestinationRefusedError);
      expect((refused as DestinationRefusedError).message).toBe(BLOCKED_ADDRESS_RULE);
      expect((refused as DestinationRefusedError).message).not.toMatch(/10\.1\.2\.3|fd00|ec2/);
    }
  });

  it('refuses a hostname that does not resolve', async () => {
    expect(await refusal('https://nowhere.example.com/', { ...deployed, lookup: lookupFrom({}) })).toBe('unresolvable');
  });
});

describe('checkDestination, locally (allowLoopbackHttp)', () => {
  it('admits http to loopback, by literal or by name', async () => {
    const lookup = lookupFrom({ localhost: ['127.0.0.1', '::1'] });
    await expect(checkDestination('http://127.0.0.1:4242/hook', { ...local, lookup })).resolves.toMatchObject({ addresses: ['127.0.0.1'] });
    await expect(checkDestination('http://[::1]:4242/hook', { ...local, lookup })).resolves.toMatchObject({ addresses: ['::1'] });
    await expect(checkDestination('http://localhost:4242/hook', { ...local, lookup })).resolves.toMatchObject({ addresses: ['127.0.0.1', '::1'] });
  });

  it('still refuses http to anything but loopback, and every other private range', async () => {
    const lookup = lookupFrom({ 'hooks.example.com': [PUBLIC_V4], 'half.example.com': ['127.0.0.1', '10.0.0.1'] });
    expect(await refusal('http://hooks.example.com/hook', { ...local, lookup })).toBe('scheme');
    expect(await refusal('https://192.168.0.10/hook', { ...local, lookup })).toBe('blocked_address');
    expect(await refusal('https://169.254.169.254/', { ...local, lookup })).toBe('blocked_address');
    expect(await refusal('https://half.example.com/hook', { ...local, lookup })).toBe('blocked_address');
    expect(await refusal('http://metadata.google.internal/', { ...local, lookup })).toBe('blocked_name');
  });

  it('keeps admitting https to public hosts', async () => {
    await expect(checkDestination(`https://${PUBLIC_V4}/hook`, local)).resolves.toMatchObject({ addresses: [PUBLIC_V4] });
  });
});
