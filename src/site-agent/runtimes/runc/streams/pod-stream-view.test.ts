import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerRecord, PodRecord } from '../../kubelet/index.js';
import { logInstance, type PodStreamView } from './pod-stream-view.js';
import { execFailureCode } from './runc-exec.js';

const term = (id: string) => ({ exitCode: 1, reason: 'Error', startedAt: 0, finishedAt: 1, containerID: `runc://${id}` });
function view(c: Partial<ContainerRecord>): PodStreamView {
  const container: ContainerRecord = { name: 'c', image: 'i', imageID: '', restartCount: 0, current: { kind: 'waiting', reason: 'ContainerCreating' }, ready: false, started: false, ...c };
  const record = { uid: 'u', name: 'web', namespace: 'ns', initContainers: [], containers: [container] } as unknown as PodRecord;
  return { uid: 'u', name: 'web', namespace: 'ns', podDir: '/pods/u', record, running: new Map() };
}

describe('which instance kubectl logs reads (kubelet\'s validateContainerLogStatus)', () => {
  it('running, else terminated, else the last termination; --previous the last termination', () => {
    const running = view({ current: { kind: 'running', startedAt: 0, containerID: 'runc://abc-c-2' }, lastTermination: term('abc-c-1') });
    assert.deepEqual(logInstance(running, 'c', false), { id: 'abc-c-2', files: { bundle: '/pods/u/containers/c/2/bundle', log: '/pods/u/containers/c/2/container.log', exitDir: '/pods/u/containers/c/2/exit', persistDir: '/pods/u/containers/c/2/state', socketDir: '/pods/u/containers/c/2/sockets' } });
    assert.equal((logInstance(running, 'c', true) as { id: string }).id, 'abc-c-1');
    const backoff = view({ current: { kind: 'waiting', reason: 'CrashLoopBackOff' }, lastTermination: term('abc-c-3') });
    assert.equal((logInstance(backoff, 'c', false) as { id: string }).id, 'abc-c-3');
  });

  it('refuses with kubelet\'s words', () => {
    assert.deepEqual(logInstance(view({}), 'c', false), { code: 400, message: 'container "c" in pod "web" is waiting to start: ContainerCreating' });
    assert.deepEqual(logInstance(view({}), 'c', true), { code: 400, message: 'previous terminated container "c" in pod "web" not found' });
    assert.deepEqual(logInstance(view({}), 'x', false), { code: 400, message: 'container "x" in pod "web" is not available' });
  });
});

describe('exec exit codes when runc could not start the command', () => {
  it('127 for a missing program, 126 otherwise, the command\'s own status when runc logged no error', () => {
    const log = (msg: string) => `{"level":"error","msg":${JSON.stringify(msg)},"time":"x"}\n`;
    assert.equal(execFailureCode(255, log('exec failed: unable to start container process: exec: "nope": executable file not found in $PATH')), 127);
    assert.equal(execFailureCode(255, log('exec failed: unable to start container process: exec: "/etc": permission denied')), 126);
    assert.equal(execFailureCode(255, ''), undefined);
    assert.equal(execFailureCode(3, log('anything')), undefined);
  });
});
