import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { SIDECAR_CONTAINER_NAME, SIDECAR_PORT, sidecarPortForwardRefusal } from '../../../../api/sidecar-injection.js';
import { SiteStreamError, type PodStreamTarget } from '../../../../site-api/pod-streams.js';
import { podKeyOf } from '../../../pod-key.js';
import type { ContainerStdio } from '../containers/container-stdio.js';
import type { PodRecord } from '../../kubelet/index.js';
import { containerFiles } from '../containers/index.js';
import type { RuncContainers } from '../containers/runc-containers.js';
import { RuncPodStreams, type StreamPod } from './runc-pod-streams.js';

const cluster = { tenant: 't', namespace: 'ns', name: 'vk' };
const target: PodStreamTarget = { cluster, name: 'web', uid: 'u', site: 's', container: 'c' };

function streamsWith(stdio: ContainerStdio, socat: () => never): RuncPodStreams {
  const record = { uid: 'u', name: 'web', namespace: 'ns', initContainers: [], containers: [{ name: 'c', image: 'i', imageID: '', restartCount: 0, current: { kind: 'running', startedAt: 0, containerID: 'runc://u-c-0' }, ready: true, started: true }] } as unknown as PodRecord;
  const pod: StreamPod = {
    view: { uid: 'u', name: 'web', namespace: 'ns', podDir: '/nonexistent/u', record, running: new Map([['c', { id: 'u-c-0', files: containerFiles('/nonexistent/u', 'c/0'), stdio }]]) },
    containers: {} as RuncContainers,
    ip: '10.0.0.2',
  };
  return new RuncPodStreams((key) => (key === podKeyOf(cluster, 'web') ? pod : undefined), () => Date.now(), socat);
}

describe('attach input on a site without socat', () => {
  const missing = (): never => {
    throw new Error('attaching to a container\'s stdin needs socat (Debian package socat)');
  };

  it('refuses attach with stdin to a container with stdin: true, naming what to install, before anything starts', async () => {
    const streams = streamsWith({ stdin: true, stdinOnce: false, tty: false }, missing);
    await assert.rejects(
      streams.attach(target, { stdin: true, stdout: true, stderr: true, tty: false }, { stdin: new PassThrough(), stdout: new PassThrough(), signal: new AbortController().signal }),
      (error: unknown) => error instanceof SiteStreamError && error.code === 500 && /needs socat \(Debian package socat\)/.test(error.message),
    );
  });

  it('does not need socat for output alone, nor for input to a container without stdin (it goes nowhere)', async () => {
    for (const [stdio, stdin] of [[{ stdin: true, stdinOnce: false, tty: false }, false], [{ stdin: false, stdinOnce: false, tty: false }, true]] as const) {
      const streams = streamsWith(stdio, missing);
      const abort = new AbortController();
      const session = streams.attach(target, { stdin, stdout: true, stderr: true, tty: false }, { ...(stdin ? { stdin: new PassThrough() } : {}), stdout: new PassThrough(), signal: abort.signal });
      abort.abort();
      await session;
    }
  });
});

describe('port-forward to the sidecar', () => {
  it(`refuses the sidecar's port ${SIDECAR_PORT} with 403 before dialling anything: its API serves the pod's key`, async () => {
    const record = {
      uid: 'u',
      name: 'web',
      namespace: 'ns',
      initContainers: [],
      containers: ['c', SIDECAR_CONTAINER_NAME].map((name) => ({ name, image: 'i', imageID: '', restartCount: 0, current: { kind: 'running', startedAt: 0, containerID: `runc://u-${name}-0` }, ready: true, started: true })),
    } as unknown as PodRecord;
    const pod: StreamPod = {
      view: { uid: 'u', name: 'web', namespace: 'ns', podDir: '/nonexistent/u', record, running: new Map(), sandbox: { infraId: 'u-infra', netnsPath: '/nonexistent/netns' } },
      containers: {} as RuncContainers,
      ip: '10.0.0.2',
    };
    const streams = new RuncPodStreams((key) => (key === podKeyOf(cluster, 'web') ? pod : undefined), () => Date.now(), () => {
      throw new Error('not used');
    });
    await assert.rejects(streams.portForward({ ...target, container: '' }, SIDECAR_PORT), (error: unknown) => error instanceof SiteStreamError && error.code === 403 && error.message === sidecarPortForwardRefusal(SIDECAR_PORT));
    streams.close();
  });
});
