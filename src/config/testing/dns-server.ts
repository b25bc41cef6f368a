import { createSocket, type Socket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, to give to a resolver. */
  readonly address: string;
  /** Publishes TXT values on a name (replacing earlier ones). */
  setTxt(name: string, values: string[]): void;
  stop(): Promise<void>;
}

/**
 * A real DNS server on a loopback UDP port answering TXT questions from a table (NXDOMAIN
 * otherwise): the resolver under test speaks real DNS to it.
 */
export async function startTestDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const socket: Socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    const values = question === undefined ? undefined : records.get(question.name.toLowerCase());
    const answers: dnsPacket.Answer[] =
      question?.type === 'TXT' && values !== undefined ? values.map((v) => ({ type: 'TXT', name: question.name, ttl: 5, class: 'IN', data: [v] })) : [];
    const nxdomain = values === undefined ? 3 : 0;
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | nxdomain,
      questions: query.questions ?? [],
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    setTxt: (name, values) => void records.set(name.toLowerCase(), values),
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
