import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLineLogger, type LevelLogger } from './line-logger.js';
import { createLogger } from './logger.js';

/** A destination keeping the lines written to it. */
function collector(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(...chunk.toString().split('\n').filter((l) => l !== '')), done()) });
  return { stream, lines };
}

/** The same calls on a logger; returns what it wrote, each line parsed, `time` checked then left out. */
function written(make: (destination: Writable) => LevelLogger, calls: (logger: LevelLogger) => void): unknown[] {
  const { stream, lines } = collector();
  calls(make(stream));
  return lines.map((line) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    assert.match(String(record['time']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    delete record['time'];
    return { keys: Object.keys(record), record };
  });
}

describe('the line logger (the sidecar\'s, without pino)', () => {
  const failure = new Error('boom', { cause: new Error('root cause') });
  Object.assign(failure, { code: 'E_BOOM' });

  it('writes the lines pino writes: fields, msg, levels, err serialized, secrets redacted', () => {
    const calls = (logger: LevelLogger): void => {
      logger.info({ urls: ['http://127.0.0.1:8070'], n: 3 }, 'sidecar listening');
      logger.info({ request: { token: 'eyJ.secret', path: '/x' }, token: 'top level stays' }, 'redacted');
      logger.warn({ headers: { authorization: 'Bearer x', Authorization: 'Bearer y', accept: '*/*' }, creds: { privateKey: 'k', key: 'k', password: 'p', secret: 's' } }, 'more redacted');
      logger.error({ err: failure, method: 'GET' }, 'sidecar request failed');
      logger.warn(failure);
      logger.fatal(failure, 'with a message');
      logger.info({ err: 'not an error', list: [{ token: 'inside an array' }], none: null, big: 5n });
      logger.info('just a message');
      logger.info(undefined, 'after undefined');
      logger.info(null, 'after null');
      logger.info(42);
      logger.debug({ hidden: true }, 'below the level');
      logger.trace('below the level');
    };
    const pinoLines = written((destination) => createLogger({ level: 'info', name: 'edgeplane-sidecar', destination, format: 'json' }), calls);
    const lineLines = written((destination) => createLineLogger({ level: 'info', name: 'edgeplane-sidecar', destination, format: 'json' }), calls);
    assert.equal(lineLines.length, 11);
    assert.deepEqual(lineLines, pinoLines);
  });

  it('levels: isLevelEnabled, silent, and an unknown level refused', () => {
    const { stream, lines } = collector();
    const debug = createLineLogger({ level: 'debug', destination: stream });
    assert.deepEqual(['trace', 'debug', 'info', 'fatal'].map((l) => debug.isLevelEnabled(l)), [false, true, true, true]);
    debug.trace('no');
    debug.debug('yes');
    const silent = createLineLogger({ level: 'silent', destination: stream });
    silent.fatal('no');
    assert.equal(silent.isLevelEnabled('fatal'), false);
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as { msg: string }).msg), ['yes']);
    assert.throws(() => createLineLogger({ level: 'verbose' }), /log level "verbose" is not one of fatal, error, warn, info, debug, trace, silent/);
  });

  it('a circular field is written as [Circular], not thrown; pretty lines as pino\'s pretty format', () => {
    const { stream, lines } = collector();
    const looped: Record<string, unknown> = { name: 'loop' };
    looped['self'] = looped;
    createLineLogger({ destination: stream, format: 'json' }).info({ looped, twice: [looped.name, looped.name] }, 'circular');
    assert.deepEqual((JSON.parse(lines[0] ?? '') as { looped: unknown }).looped, { name: 'loop', self: '[Circular]' });
    const pretty = collector();
    createLineLogger({ destination: pretty.stream, format: 'pretty' }).info({ url: 'http://127.0.0.1:8070' }, 'sidecar listening');
    assert.match(pretty.lines[0] ?? '', /^\d\d:\d\d:\d\d\.\d{3} INFO {2}sidecar listening url=http:\/\/127\.0\.0\.1:8070$/);
  });
});
