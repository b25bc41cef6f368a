import { connect, createServer, type AddressInfo, type Server } from 'node:net';

/** A TCP server on 127.0.0.1 that sends back what it receives and closes when the client does. */
export async function startEchoServer(): Promise<{ readonly port: number; readonly connections: () => number; close(): Promise<void> }> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count++;
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Sends `data` to 127.0.0.1:`port`, half-closes, and returns everything received until the server closes. */
export function roundTrip(port: number, data: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(data));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}
