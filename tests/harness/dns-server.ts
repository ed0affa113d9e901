import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type OptAnswer, type Packet } from 'dns-packet';

export interface TestDnsServer {
  /** "127.0.0.1:PORT", for `dns.setServers([address])` / the app's `DNS_SERVERS` setting */
  address: string;
  setTxt(name: string, values: string[]): void; // name case-insensitive, without trailing dot
  clear(name: string): void;
  /** Names queried so far (lowercased), for assertions. */
  readonly queries: string[];
  stop(): Promise<void>;
}

const NXDOMAIN = 3;
const FORMERR = 1;
/** Largest UDP answer for a query without EDNS (RFC 1035); larger ones are truncated so the resolver retries on TCP. */
const CLASSIC_UDP_LIMIT = 512;

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** A TXT value as character-strings of at most 255 bytes each (resolvers join them again). */
const chunks = (value: string) => {
  const bytes = Buffer.from(value);
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) parts.push(bytes.subarray(i, i + 255));
  return parts.length ? parts : [Buffer.alloc(0)];
};

/**
 * An authoritative DNS server for TXT records on 127.0.0.1 (UDP and TCP on the same port), for domain verification
 * tests. Known names answer their TXT values (TTL 0) and an empty NOERROR for other types; unknown names NXDOMAIN.
 */
export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const queries: string[] = [];

  function answer(query: DecodedPacket): Packet {
    const rd = (query.flags ?? 0) & dnsPacket.RECURSION_DESIRED;
    const question = query.questions?.[0];
    if (!question || query.type !== 'query') {
      return { type: 'response', id: query.id, flags: dnsPacket.AUTHORITATIVE_ANSWER | rd | FORMERR };
    }
    const name = normalize(question.name);
    queries.push(name);
    const values = records.get(name);
    const response = { type: 'response' as const, id: query.id, questions: [question] };
    if (!values) return { ...response, flags: dnsPacket.AUTHORITATIVE_ANSWER | rd | NXDOMAIN };
    const answers: Answer[] =
      question.type === 'TXT'
        ? values.map((value) => ({ type: 'TXT', name: question.name, class: 'IN', ttl: 0, data: chunks(value) }))
        : [];
    return { ...response, flags: dnsPacket.AUTHORITATIVE_ANSWER | rd, answers };
  }

  const decode = (message: Buffer) => {
    try {
      return dnsPacket.decode(message);
    } catch {
      return undefined;
    }
  };

  async function bind(): Promise<{ udp: Socket; tcp: Server; port: number }> {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => {
        udp.off('error', reject);
        resolve();
      });
    });
    const { port } = udp.address();
    const tcp = createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => {
          tcp.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      udp.close();
      throw error;
    }
    return { udp, tcp, port };
  }

  // The UDP port may be taken on TCP: try a few ports.
  let bound: Awaited<ReturnType<typeof bind>> | undefined;
  for (let attempt = 0; !bound; attempt++) {
    try {
      bound = await bind();
    } catch (error) {
      if (attempt >= 10 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  const { udp, tcp, port } = bound;

  udp.on('message', (message, remote) => {
    const query = decode(message);
    if (!query) return;
    const response = answer(query);
    const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
    const limit = Math.max(opt?.udpPayloadSize ?? CLASSIC_UDP_LIMIT, CLASSIC_UDP_LIMIT);
    let out = dnsPacket.encode(response);
    if (out.length > limit) {
      const flags = (response.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE;
      out = dnsPacket.encode({ type: 'response', id: response.id, flags, questions: response.questions });
    }
    udp.send(out, remote.port, remote.address);
  });

  const sockets = new Set<TcpSocket>();
  tcp.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      // Each message is preceded by its length (RFC 1035 §4.2.2).
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const length = buffered.readUInt16BE(0);
        const query = decode(buffered.subarray(2, 2 + length));
        buffered = buffered.subarray(2 + length);
        if (!query) {
          socket.destroy();
          return;
        }
        socket.write(dnsPacket.streamEncode(answer(query)));
      }
    });
  });

  return {
    address: `127.0.0.1:${port}`,
    setTxt(name, values) {
      records.set(normalize(name), [...values]);
    },
    clear(name) {
      records.delete(normalize(name));
    },
    queries,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
