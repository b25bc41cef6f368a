import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AgentCredential } from '../../../src/site-agent/agent-credential.js';
import { dialPodRelay } from '../../../src/site-agent/tunnel/dial-pod-relay.js';

export interface GatewayRelay {
  readonly port: number;
  /** Pod relay connections opened per server URL. */
  readonly dialled: ReadonlyMap<string, number>;
  close(): void;
}

/**
 * What a runc site's gateway relay does, in this process on 127.0.0.1: each connection piped
 * into a pod relay connection the agent (`credential`) opens to the control plane. With several
 * servers (replicas over one store), connections go to them in turn, as behind a load balancer.
 */
export async function startGatewayRelay(credential: Pick<AgentCredential, 'ca' | 'certificate' | 'key'>, servers: readonly string[]): Promise<GatewayRelay> {
  const sockets = new Set<Duplex>();
  const dialled = new Map<string, number>();
  let next = 0;
  const server: Server = createServer((inside: Socket) => {
    sockets.add(inside);
    inside.on('error', () => inside.destroy());
    const target = servers[next++ % servers.length] ?? '';
    dialled.set(target, (dialled.get(target) ?? 0) + 1);
    dialPodRelay({ ...credential, server: target }).then(
      (outside) => {
        sockets.add(outside);
        const end = (): void => {
          inside.destroy();
          outside.destroy();
        };
        inside.on('close', end);
        outside.on('close', end).on('error', end);
        inside.pipe(outside).pipe(inside);
      },
      () => inside.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    dialled,
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
