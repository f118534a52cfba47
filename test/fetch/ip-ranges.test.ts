// The address table on its own: which canonical addresses are refused, and why.
import { describe, expect, it } from 'bun:test';
import { parseIPv4, parseIPv6, refusedRange } from '../../src/fetch/ip-ranges';

describe('refusedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:0:a00:1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['1:2:3:4:5:6:7:8', 'reserved'],
  ])('refuses %s as %s', (address, kind) => {
    expect(refusedRange(address)).toContain(kind);
  });

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2001:4860::8888',
    '::ffff:1.1.1.1',
    '64:ff9b::808:808',
  ])('lets public %s through', (address) => {
    expect(refusedRange(address)).toBeNull();
  });

  it.each([
    '0177.0.0.1',
    '0x7f.1',
    '2130706433',
    '127.1',
    'localhost',
    '',
    '1.2.3.4.5',
    'fe80::1%eth0',
    '1::2::3',
    'g::1',
  ])('refuses %p, which is not canonical address text, rather than guessing', (text) => {
    expect(refusedRange(text)).not.toBeNull();
  });
});

describe('parsers', () => {
  it('reads dotted-decimal IPv4 only', () => {
    expect(parseIPv4('127.0.0.1')).toBe(0x7f000001);
    expect(parseIPv4('256.0.0.1')).toBeNull();
    expect(parseIPv4('127.1')).toBeNull();
  });

  it('reads IPv6 with ::, brackets and a dotted tail', () => {
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('[::1]')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIPv6('1:2:3:4:5:6:1.2.3.4')).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
    expect(parseIPv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('1:2:3:4:5:6:7')).toBeNull();
    expect(parseIPv6('1:2:3:4:5:6:7:8:9')).toBeNull();
    expect(parseIPv6('1:2:3:4::5:6:7:8')).toBeNull();
  });
});
