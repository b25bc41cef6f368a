import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fakeClock } from '../../common/clock.js';
import { auditLogFile } from './audit-log-file.js';
import { microTime, type AuditEvent } from './audit-event.js';
import { SessionAuditTrail } from './session-audit.js';

const dir = mkdtempSync(join(tmpdir(), 'edgeplane-audit-'));

function lines(path: string): AuditEvent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}

describe('session audit log file', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('audit log file is made 0600 in a folder made 0700, and one JSON event a line is appended', () => {
    const path = join(dir, 'new', 'deeper', 'sessions.log');
    const audit = auditLogFile(path);
    assert.equal(statSync(join(dir, 'new', 'deeper')).mode & 0o777, 0o700);
    const clock = fakeClock(new Date('2020-01-01T00:00:00Z'));
    const trail = new SessionAuditTrail(audit, clock, {
      requestURI: '/x/exec?command=id',
      verb: 'create',
      kind: 'exec',
      namespace: 'default',
      pod: 'p',
      cluster: { namespace: 'default', vk8s: 'vk' },
      query: new URLSearchParams('command=id&command=-u&container=c'),
    });
    trail.upgraded('SPDY/3.1+v4.channel.k8s.io');
    clock.advance(1500);
    trail.ended();
    trail.ended();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const events = lines(path);
    assert.deepEqual(
      events.map((e) => [e.stage, e.requestReceivedTimestamp, e.stageTimestamp, e.annotations['edgeplane.io/command'], e.annotations['edgeplane.io/container'], e.annotations['edgeplane.io/duration']]),
      [
        ['ResponseStarted', '2020-01-01T00:00:00.000000Z', '2020-01-01T00:00:00.000000Z', '["id","-u"]', 'c', undefined],
        ['ResponseComplete', '2020-01-01T00:00:00.000000Z', '2020-01-01T00:00:01.500000Z', '["id","-u"]', 'c', '1.5s'],
      ],
      'one end, however often the session says it ended',
    );
    assert.equal(events[0]?.auditID, events[1]?.auditID);
  });

  it('audit log file takes an existing file private, and a failed write is logged, not thrown', () => {
    const folder = join(dir, 'existing');
    mkdirSync(folder, { mode: 0o700 });
    const path = join(folder, 'sessions.log');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const logged: string[] = [];
    const logger = { warn: (_o: unknown, message: string) => logged.push(message), error: (_o: unknown, message: string) => logged.push(message) };
    const audit = auditLogFile(path, logger as never);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    rmSync(folder, { recursive: true });
    mkdirSync(path, { recursive: true }); // the log's path is now a folder: appending fails
    const trail = new SessionAuditTrail(audit, fakeClock(new Date(0)), { requestURI: '/', verb: 'get', kind: 'attach', pod: 'p', cluster: { namespace: 'n', vk8s: 'v' }, query: new URLSearchParams() });
    trail.refused(404, 'pods "p" not found', 'NotFound');
    assert.deepEqual(logged, ['made private: group and others had access', 'could not write a session audit record']);
  });

  it('audit times are metav1.MicroTime', () => {
    assert.equal(microTime('2020-01-01T00:00:00.123456789Z'), '2020-01-01T00:00:00.123456Z');
    assert.equal(microTime('2020-01-01T00:00:00Z'), '2020-01-01T00:00:00.000000Z');
  });
});
