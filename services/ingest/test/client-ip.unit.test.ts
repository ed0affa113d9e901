import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClientIpResolver } from '../src/client-ip.ts';

/** A request whose TCP peer is `peer` (a real socket object; its address is what node reports). */
function from(peer: string, headers: Record<string, string> = {}): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: peer });
  const req = new IncomingMessage(socket);
  req.headers = headers;
  return req;
}

describe('client IP for the spam layers', () => {
  const resolve = createClientIpResolver(['127.0.0.1', '10.0.0.0/8', '::1']);

  it('believes the gateway’s x-formgate-client-ip from a trusted peer (IP, CIDR, IPv4-mapped)', () => {
    expect(resolve(from('127.0.0.1', { 'x-formgate-client-ip': '203.0.113.9' }))).toBe('203.0.113.9');
    expect(resolve(from('10.1.2.3', { 'x-formgate-client-ip': '2001:db8::1' }))).toBe('2001:db8::1');
    expect(resolve(from('::ffff:127.0.0.1', { 'x-formgate-client-ip': '::ffff:198.51.100.1' }))).toBe('198.51.100.1');
  });

  it('ignores every client-sent address from an untrusted peer (ingest reached directly)', () => {
    const req = from('198.51.100.20', { 'x-formgate-client-ip': '1.2.3.4', 'x-forwarded-for': '5.6.7.8' });
    expect(resolve(req)).toBe('198.51.100.20');
  });

  it('never reads X-Forwarded-For, even from a trusted peer', () => {
    expect(resolve(from('127.0.0.1', { 'x-forwarded-for': '5.6.7.8' }))).toBe('127.0.0.1');
  });

  it('falls back to the peer when the forwarded value is not an IP', () => {
    expect(resolve(from('127.0.0.1', { 'x-formgate-client-ip': 'junk' }))).toBe('127.0.0.1');
  });

  it('answers the same for a peer seen again, also after more peers than it remembers', () => {
    const fresh = createClientIpResolver(['10.0.0.0/8']);
    const viaGateway = () => fresh(from('10.9.9.9', { 'x-formgate-client-ip': '203.0.113.7' }));
    const direct = () => fresh(from('198.51.100.3', { 'x-formgate-client-ip': '203.0.113.7' }));
    expect([viaGateway(), direct(), viaGateway(), direct()]).toEqual([
      '203.0.113.7',
      '198.51.100.3',
      '203.0.113.7',
      '198.51.100.3',
    ]);
    for (let i = 0; i < 2_500; i++) {
      const peer = `192.0.${i >> 8}.${i & 255}`;
      expect(fresh(from(peer, { 'x-formgate-client-ip': '203.0.113.7' }))).toBe(peer);
    }
    expect([viaGateway(), direct()]).toEqual(['203.0.113.7', '198.51.100.3']);
  });

  it('with no trusted proxies, the socket address is the client', () => {
    expect(createClientIpResolver([])(from('127.0.0.1', { 'x-formgate-client-ip': '1.2.3.4' }))).toBe('127.0.0.1');
    expect(createClientIpResolver([])(from('::ffff:192.0.2.1', { 'x-formgate-client-ip': '1.2.3.4' }))).toBe(
      '192.0.2.1',
    );
  });

  it('refuses an entry that is not an IP or a range', () => {
    expect(() => createClientIpResolver(['gateway.local'])).toThrow(/TRUSTED_PROXIES/);
  });
});
