import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { podPrinter } from './pod-printer.js';
import { DAY, HOUR, MINUTE, NOW, ago, meta, namedDoc, object } from './testing/fixtures.js';

const printer = podPrinter(namedDoc);

function pod(name: string, spec: Record<string, unknown>, status: Record<string, unknown>, extra: Parameters<typeof meta>[2] = {}): KubeObject {
  return object('v1', 'Pod', meta(name, 5 * MINUTE, extra), { spec: { containers: [{ name: 'app', image: 'nginx:1.17' }], ...spec }, status });
}

const running = (name: string, restartCount = 0, ready = true): Record<string, unknown> => ({
  name,
  ready,
  restartCount,
  image: 'nginx:1.17',
  state: { running: { startedAt: ago(4 * MINUTE) } },
});

/** The Status cell. */
const statusOf = (p: KubeObject): unknown => printer.cells(p, NOW)[2];

describe('pod printer', () => {
  it('pod printer prints a running pod with its wide cells', () => {
    const p = pod(
      'web-0',
      { nodeName: 'node-1', containers: [{ name: 'app' }, { name: 'sidecar' }] },
      { phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }], containerStatuses: [running('app', 2), running('sidecar', 1)] },
    );
    assert.deepEqual(printer.cells(p, NOW), ['web-0', '2/2', 'Running', 3, '5m', '10.0.0.5', 'node-1', '<none>', '<none>']);
    assert.equal(printer.conditions?.(p), undefined);
  });

  it('pod printer shows <none> for a pending pod without IP or node, and the phase as status', () => {
    const p = pod('pending', {}, { phase: 'Pending' });
    assert.deepEqual(printer.cells(p, NOW), ['pending', '0/1', 'Pending', 0, '5m', '<none>', '<none>', '<none>', '<none>']);
  });

  it('pod printer takes the IP from podIP when podIPs is absent, and shows the nominated node', () => {
    const p = pod('x', {}, { phase: 'Pending', podIP: '10.1.1.1', nominatedNodeName: 'node-2' });
    assert.deepEqual(printer.cells(p, NOW).slice(5, 8), ['10.1.1.1', '<none>', 'node-2']);
  });

  it('pod printer prefers status.reason over the phase', () => {
    assert.equal(statusOf(pod('evicted', {}, { phase: 'Failed', reason: 'Evicted' })), 'Evicted');
  });

  it('pod printer shows a waiting container reason and counts only ready running containers', () => {
    const p = pod('crash', { containers: [{ name: 'a' }, { name: 'b' }] }, {
      phase: 'Running',
      containerStatuses: [
        { name: 'a', ready: false, restartCount: 7, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s' } } },
        running('b', 0),
      ],
    });
    const cells = printer.cells(p, NOW);
    assert.deepEqual(cells.slice(1, 4), ['1/2', 'CrashLoopBackOff', 7]);
  });

  it('pod printer shows ContainerCreating and ImagePullBackOff reasons', () => {
    assert.equal(statusOf(pod('c', {}, { phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] })), 'ContainerCreating');
    assert.equal(statusOf(pod('c', {}, { phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } }] })), 'ImagePullBackOff');
  });

  it('pod printer lets the first container win when several report reasons', () => {
    const p = pod('two', { containers: [{ name: 'a' }, { name: 'b' }] }, {
      phase: 'Running',
      containerStatuses: [
        { name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ErrImagePull' } } },
        { name: 'b', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } },
      ],
    });
    assert.equal(statusOf(p), 'ErrImagePull');
  });

  it('pod printer shows terminated reasons, signals and exit codes', () => {
    const term = (terminated: Record<string, unknown>): KubeObject => pod('t', {}, { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, restartCount: 1, state: { terminated } }] });
    assert.equal(statusOf(term({ exitCode: 137, reason: 'OOMKilled' })), 'OOMKilled');
    assert.equal(statusOf(term({ exitCode: 137, signal: 9 })), 'Signal:9');
    assert.equal(statusOf(term({ exitCode: 3 })), 'ExitCode:3');
    assert.equal(statusOf(term({ exitCode: 0 })), 'ExitCode:0');
  });

  it('pod printer marks completed pods and their rows', () => {
    const p = pod('job-abc', {}, { phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] });
    assert.deepEqual(printer.cells(p, NOW).slice(1, 4), ['0/1', 'Completed', 0]);
    assert.deepEqual(printer.conditions?.(p), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    const failed = pod('job-def', {}, { phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 2, reason: 'Error' } } }] });
    assert.equal(statusOf(failed), 'Error');
    assert.deepEqual(printer.conditions?.(failed), [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
  });

  it('pod printer reads Completed as Running while another container still runs', () => {
    const p = pod('mixed', { containers: [{ name: 'a' }, { name: 'b' }] }, {
      phase: 'Running',
      containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }, running('b')],
    });
    assert.deepEqual(printer.cells(p, NOW).slice(1, 3), ['1/2', 'Running']);
  });

  it('pod printer does not count a ready flag without a running state', () => {
    const p = pod('odd', {}, { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: {} }] });
    assert.deepEqual(printer.cells(p, NOW).slice(1, 3), ['0/1', 'Running']);
  });

  describe('init containers', () => {
    const spec = { initContainers: [{ name: 'init-a' }, { name: 'init-b' }, { name: 'init-c' }] };
    const done = { name: 'init-a', ready: true, restartCount: 1, state: { terminated: { exitCode: 0, reason: 'Completed' } } };

    it('pod printer shows Init:i/n for the init container running or waiting to initialize', () => {
      const p = pod('i', spec, {
        phase: 'Pending',
        initContainerStatuses: [
          done,
          { name: 'init-b', ready: false, restartCount: 2, state: { running: { startedAt: ago(MINUTE) } } },
          { name: 'init-c', ready: false, restartCount: 5, state: { waiting: { reason: 'PodInitializing' } } },
        ],
        containerStatuses: [{ name: 'app', ready: false, restartCount: 9, state: { waiting: { reason: 'PodInitializing' } } }],
      });
      // Restarts: init containers up to the current one (1 + 2), not the app's.
      assert.deepEqual(printer.cells(p, NOW).slice(1, 4), ['0/1', 'Init:1/3', 3]);
    });

    it('pod printer shows Init:0/n while the first init container waits to start', () => {
      const p = pod('i', spec, { phase: 'Pending', initContainerStatuses: [{ name: 'init-a', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }] });
      assert.equal(statusOf(p), 'Init:0/3');
    });

    it('pod printer shows Init:<reason> for a waiting or failed init container', () => {
      const waiting = pod('i', spec, { phase: 'Pending', initContainerStatuses: [done, { name: 'init-b', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] });
      assert.deepEqual(printer.cells(waiting, NOW).slice(2, 4), ['Init:CrashLoopBackOff', 5]);
      const failed = pod('i', spec, { phase: 'Pending', initContainerStatuses: [done, { name: 'init-b', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] });
      assert.equal(statusOf(failed), 'Init:Error');
    });

    it('pod printer shows Init:Signal:N and Init:ExitCode:N for init containers terminated without a reason', () => {
      const signalled = pod('i', spec, { phase: 'Pending', initContainerStatuses: [{ name: 'init-a', ready: false, restartCount: 0, state: { terminated: { exitCode: 143, signal: 15 } } }] });
      assert.equal(statusOf(signalled), 'Init:Signal:15');
      const exited = pod('i', spec, { phase: 'Pending', initContainerStatuses: [{ name: 'init-a', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } }] });
      assert.equal(statusOf(exited), 'Init:ExitCode:2');
    });

    it('pod printer moves on to the app containers once every init container succeeded', () => {
      const p = pod('i', spec, {
        phase: 'Running',
        initContainerStatuses: [done, { ...done, name: 'init-b' }, { ...done, name: 'init-c' }],
        containerStatuses: [running('app', 4)],
      });
      assert.deepEqual(printer.cells(p, NOW).slice(1, 4), ['1/1', 'Running', 4]);
    });
  });

  it('pod printer shows Terminating for a pod being deleted, whatever its containers say', () => {
    const p = pod('bye', {}, { phase: 'Running', containerStatuses: [running('app')] }, { deletionTimestamp: ago(-30 * 1000), deletionGracePeriodSeconds: 30 });
    assert.deepEqual(printer.cells(p, NOW).slice(1, 3), ['1/1', 'Terminating']);
  });

  it('pod printer shows Unknown for a pod of a lost node being deleted, NodeLost otherwise', () => {
    const lost = { phase: 'Running', reason: 'NodeLost', message: 'Node node-1 which was running pod lost is unresponsive', containerStatuses: [running('app')] };
    assert.equal(statusOf(pod('lost', {}, lost, { deletionTimestamp: ago(0) })), 'Unknown');
    assert.equal(statusOf(pod('lost', {}, lost)), 'NodeLost');
  });

  it('pod printer counts readiness gates whose condition is True', () => {
    const p = pod('gated', { readinessGates: [{ conditionType: 'example.com/ready' }, { conditionType: 'example.com/lb' }] }, {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'False' },
        { type: 'example.com/ready', status: 'True' },
        { type: 'example.com/lb', status: 'False' },
      ],
      containerStatuses: [running('app')],
    });
    assert.equal(printer.cells(p, NOW)[8], '1/2');
  });

  it('pod printer prints ages of days and <unknown> without a creation time', () => {
    const old = object('v1', 'Pod', meta('old', 3 * DAY + 4 * HOUR), { spec: { containers: [] }, status: {} });
    assert.equal(printer.cells(old, NOW)[4], '3d4h');
    const bare: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare' } };
    assert.deepEqual(printer.cells(bare, NOW), ['bare', '0/0', '', 0, '<unknown>', '<none>', '<none>', '<none>', '<none>']);
  });

  it('pod printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.type, c.priority, c.description]),
      [
        ['Name', 'string', 0, 'ObjectMeta.name'],
        ['Ready', 'string', 0, 'The aggregate readiness state of this pod for accepting traffic.'],
        ['Status', 'string', 0, 'The aggregate status of the containers in this pod.'],
        ['Restarts', 'integer', 0, 'The number of times the containers in this pod have been restarted.'],
        ['Age', 'string', 0, 'ObjectMeta.creationTimestamp'],
        ['IP', 'string', 1, 'PodStatus.podIP'],
        ['Node', 'string', 1, 'PodSpec.nodeName'],
        ['Nominated Node', 'string', 1, 'PodStatus.nominatedNodeName'],
        ['Readiness Gates', 'string', 1, 'PodSpec.readinessGates'],
      ],
    );
    assert.equal(printer.columns[0]?.format, 'name');
  });
});
