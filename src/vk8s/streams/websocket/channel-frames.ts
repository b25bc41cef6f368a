/**
 * The WebSocket channel framing of `*.channel.k8s.io`: every message belongs to a channel
 * named by its first byte (binary protocols), or by an ASCII digit followed by base64 data
 * (the `base64.` text protocols).
 */

/** v5's close signal: a message `[255, channel]` half-closes that channel. */
export const CLOSE_CHANNEL = 255;

export interface ChannelFrame {
  readonly channel: number;
  readonly data: Buffer;
}

export function encodeFrame(channel: number, data: Buffer, base64: boolean): Buffer | string {
  if (base64) return String.fromCharCode(48 + channel) + data.toString('base64');
  const frame = Buffer.allocUnsafe(data.length + 1);
  frame[0] = channel;
  data.copy(frame, 1);
  return frame;
}

/** A received message as a channel frame, or null for an empty (or undecodable) one. */
export function decodeFrame(message: Buffer, isBinary: boolean, base64: boolean): ChannelFrame | null {
  if (message.length === 0) return null;
  if (base64 && !isBinary) {
    const text = message.toString('latin1');
    const channel = text.charCodeAt(0) - 48;
    if (channel < 0 || channel > 9) return null;
    return { channel, data: Buffer.from(text.slice(1), 'base64') };
  }
  return { channel: message[0] ?? 0, data: message.subarray(1) };
}
