/**
 * A @grpc/grpc-js client of GRPC_SERVER (service-workloads.ts), run inside a pod's network
 * namespace: `node grpc-echo-client.js <host:port> <unary-calls> <stream-length>`. Prints one
 * JSON line: the unary replies, the streamed replies and the trailers (metadata) of each.
 */
import * as grpc from '@grpc/grpc-js';

interface Unary {
  readonly reply: string;
  readonly trailer: string | null;
}

const [target = '', calls = '4', length = '3'] = process.argv.slice(2);
const raw = { serialize: (b: Buffer): Buffer => b, deserialize: (b: Buffer): Buffer => b };
const client = new grpc.Client(target, grpc.credentials.createInsecure());
const podOf = (metadata: grpc.Metadata): string | null => {
  const value = metadata.get('x-pod')[0];
  return value === undefined ? null : String(value);
};
// Resolves once both the reply (callback) and the status with its trailers (event) are in.
const unary = (i: number): Promise<Unary> =>
  new Promise((resolve, reject) => {
    let reply = '';
    let trailer: string | null = null;
    let pending = 2;
    const done = (): void => {
      if (--pending === 0) resolve({ reply, trailer });
    };
    const call = client.makeUnaryRequest('/test.Echo/Unary', raw.serialize, raw.deserialize, Buffer.from(`u${i}`), (error, answer) => {
      if (error !== null || answer === undefined) return reject(error ?? new Error('no reply'));
      reply = answer.toString();
      done();
    });
    call.on('status', (status: grpc.StatusObject) => {
      trailer = podOf(status.metadata);
      done();
    });
  });
const stream = (): Promise<{ replies: string[]; code: number; trailer: string | null }> =>
  new Promise((resolve, reject) => {
    const replies: string[] = [];
    const call = client.makeServerStreamRequest('/test.Echo/Stream', raw.serialize, raw.deserialize, Buffer.from(length));
    call.on('data', (b: Buffer) => replies.push(b.toString()));
    call.on('error', reject);
    call.on('status', (status: grpc.StatusObject) => resolve({ replies, code: status.code, trailer: podOf(status.metadata) }));
  });
try {
  const unaries: Unary[] = [];
  for (let i = 0; i < Number(calls); i++) unaries.push(await unary(i));
  const streamed = await stream();
  console.log(JSON.stringify({ unaries, streamed }));
} catch (error) {
  const failure = error as { code?: number; details?: string; message?: string };
  console.log(JSON.stringify({ error: `${failure.code ?? ''} ${failure.details ?? failure.message ?? ''}` }));
} finally {
  client.close();
}
