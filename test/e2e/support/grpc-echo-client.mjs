// A @grpc/grpc-js client of GRPC_SERVER (service-workloads.ts), run inside a pod's network
// namespace: `node grpc-echo-client.mjs <host:port> <unary-calls> <stream-length>`. Prints one
// JSON line: the unary replies, the streamed replies and the trailers (metadata) of each.
import * as grpc from '@grpc/grpc-js';

const [target, calls = '4', length = '3'] = process.argv.slice(2);
const raw = { serialize: (b) => b, deserialize: (b) => b };
const client = new grpc.Client(target, grpc.credentials.createInsecure());
// Resolves once both the reply (callback) and the status with its trailers (event) are in.
const unary = (i) =>
  new Promise((resolve, reject) => {
    let reply;
    let trailer;
    let pending = 2;
    const done = () => --pending === 0 && resolve({ reply, trailer });
    const call = client.makeUnaryRequest('/test.Echo/Unary', raw.serialize, raw.deserialize, Buffer.from(`u${i}`), (error, answer) => {
      if (error) return reject(error);
      reply = answer.toString();
      done();
    });
    call.on('status', (status) => {
      trailer = status.metadata.get('x-pod')[0] ?? null;
      done();
    });
  });
const stream = () =>
  new Promise((resolve, reject) => {
    const replies = [];
    const call = client.makeServerStreamRequest('/test.Echo/Stream', raw.serialize, raw.deserialize, Buffer.from(length));
    call.on('data', (b) => replies.push(b.toString()));
    call.on('error', reject);
    call.on('status', (status) => resolve({ replies, code: status.code, trailer: status.metadata.get('x-pod')[0] ?? null }));
  });
try {
  const unaries = [];
  for (let i = 0; i < Number(calls); i++) unaries.push(await unary(i));
  const streamed = await stream();
  console.log(JSON.stringify({ unaries, streamed }));
} catch (error) {
  console.log(JSON.stringify({ error: `${error.code ?? ''} ${error.details ?? error.message}` }));
} finally {
  client.close();
}
