import { PassThrough, type Writable } from 'node:stream';
import type WebSocket from 'ws';
import type { ChannelProtocol } from '../protocols.js';
import { runRemoteCommand, type RemoteCommand } from '../remote-command.js';
import { encodeStatus } from '../remote-status.js';
import { ResizeDecoder } from '../resize-decoder.js';
import type { SessionTiming } from '../session-timing.js';
import type { PodStreamBackend, StreamIo } from '../types.js';
import { CLOSE_CHANNEL } from './channel-frames.js';
import { ChannelSocket } from './channel-socket.js';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

/**
 * exec/attach over a WebSocket (`v5`/`v4`/… `.channel.k8s.io`). kubelet first sends an empty
 * frame on the lowest channel it writes to (so the client knows the session is up), then the
 * output on channels 1 and 2, the status on 3, and closes normally. The client writes stdin
 * on 0 and terminal sizes on 4; with v5 it ends stdin with the close signal `[255, 0]`,
 * before v5 only by closing the socket.
 */
export async function serveWebSocketRemoteCommand(
  ws: WebSocket,
  command: RemoteCommand,
  backend: PodStreamBackend,
  setup: { readonly protocol: ChannelProtocol; readonly timing: SessionTiming; readonly onError: (error: Error) => void },
): Promise<void> {
  const socket = new ChannelSocket(ws, setup.protocol.base64);
  ws.on('error', setup.onError);
  const { options } = command;
  const abort = new AbortController();
  const stdin = options.stdin ? new PassThrough() : undefined;
  stdin?.on('error', () => undefined);
  const resize = options.tty ? new ResizeDecoder() : undefined;
  const outputs: Writable[] = [];
  const output = (channel: number, wanted: boolean): Writable | undefined => {
    if (!wanted) return undefined;
    const writer = socket.writer(channel);
    outputs.push(writer);
    return writer;
  };
  const stdout = output(STDOUT, options.stdout);
  const stderr = output(STDERR, options.stderr);
  void socket.closed.then(() => {
    abort.abort();
    stdin?.end();
    resize?.end();
    for (const writer of outputs) writer.destroy();
  });

  socket.onFrame(({ channel, data }) => {
    if (channel === STDIN && stdin !== undefined && !stdin.writableEnded) {
      if (!stdin.write(data) && !ws.isPaused) {
        ws.pause();
        stdin.once('drain', () => ws.resume());
      }
    } else if (channel === RESIZE) {
      resize?.write(data);
    } else if (channel === CLOSE_CHANNEL && setup.protocol.version >= 5 && data[0] === STDIN) {
      stdin?.end();
    }
  });

  await socket.send(options.stdout ? STDOUT : options.stderr ? STDERR : ERROR, Buffer.alloc(0));
  const io: StreamIo = {
    signal: abort.signal,
    ...(stdin === undefined ? {} : { stdin }),
    ...(stdout === undefined ? {} : { stdout }),
    ...(stderr === undefined ? {} : { stderr }),
    ...(resize === undefined ? {} : { resize }),
  };
  const status = await runRemoteCommand(command, backend, io);
  const bytes = encodeStatus(status, setup.protocol);
  if (bytes !== null) await socket.send(ERROR, bytes);
  await socket.close(setup.timing.closeGraceMs);
}
