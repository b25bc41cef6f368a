import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { podStreamTarget } from './pod-target.js';

const scope = { tenant: 't', namespace: 'ns', vk8s: 'vk' };

function pod(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', uid: 'u1' }, spec };
}

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof StatusError);
    assert.equal(error.code, 400);
    return error.message;
  }
  return assert.fail('expected an error');
}

describe('podStreamTarget', () => {
  it('defaults to the only container and carries the pod uid', () => {
    const target = podStreamTarget(pod({ containers: [{ name: 'app' }], nodeName: 'n1' }), undefined, scope, 'exec');
    assert.deepEqual(target, { tenant: 't', namespace: 'ns', vk8s: 'vk', pod: 'web', uid: 'u1', container: 'app' });
  });

  it('without a container, uses the one kubectl.kubernetes.io/default-container names (the sidecar\'s pods), when it is the pod\'s', () => {
    const spec = { containers: [{ name: 'app' }, { name: 'edgeplane-sidecar' }], nodeName: 'n1' };
    const annotated = (name: string): KubeObject => ({ ...pod(spec), metadata: { name: 'web', uid: 'u1', annotations: { 'kubectl.kubernetes.io/default-container': name } } });
    assert.equal(podStreamTarget(annotated('app'), undefined, scope, 'log')?.container, 'app');
    assert.equal(podStreamTarget(annotated('app'), 'edgeplane-sidecar', scope, 'log')?.container, 'edgeplane-sidecar');
    assert.match(message(() => podStreamTarget(annotated('gone'), undefined, scope, 'exec')), /a container name must be specified for pod web, choose one of: \[app edgeplane-sidecar\]/);
  });

  it('accepts init and ephemeral containers by name', () => {
    const spec = { containers: [{ name: 'a' }, { name: 'b' }], initContainers: [{ name: 'i' }], ephemeralContainers: [{ name: 'debug' }], nodeName: 'n1' };
    assert.equal(podStreamTarget(pod(spec), 'i', scope, 'log')?.container, 'i');
    assert.equal(podStreamTarget(pod(spec), 'debug', scope, 'attach')?.container, 'debug');
  });

  it('refuses with kube-apiserver\'s container messages', () => {
    const spec = { containers: [{ name: 'a' }, { name: 'b' }], initContainers: [{ name: 'i' }], nodeName: 'n1' };
    assert.equal(message(() => podStreamTarget(pod(spec), undefined, scope, 'exec')), 'a container name must be specified for pod web, choose one of: [a b] or one of the init containers: [i]');
    assert.equal(message(() => podStreamTarget(pod({ containers: [{ name: 'a' }, { name: 'b' }] }), '', scope, 'log')), 'a container name must be specified for pod web, choose one of: [a b]');
    assert.equal(message(() => podStreamTarget(pod({ containers: [] }), undefined, scope, 'exec')), 'a container name must be specified for pod web');
    assert.equal(message(() => podStreamTarget(pod(spec), 'zz', scope, 'exec')), 'container zz is not valid for pod web');
  });

  it('refuses a pod without a node, except for logs, which are empty', () => {
    const spec = { containers: [{ name: 'a' }] };
    assert.equal(message(() => podStreamTarget(pod(spec), undefined, scope, 'exec')), 'pod web does not have a host assigned');
    assert.equal(message(() => podStreamTarget(pod(spec), undefined, scope, 'portforward')), 'pod web does not have a host assigned');
    assert.equal(podStreamTarget(pod(spec), undefined, scope, 'log'), null);
  });

  it('ignores containers for port-forward', () => {
    assert.equal(podStreamTarget(pod({ containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n1' }), undefined, scope, 'portforward')?.container, '');
  });
});
