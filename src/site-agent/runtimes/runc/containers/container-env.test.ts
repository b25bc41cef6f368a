import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../apimachinery/object.js';
import { containerEnvironment, ContainerConfigError, downwardField, expandReferences, resourceFieldValue, type DownwardFacts } from './container-env.js';

const facts: DownwardFacts = {
  name: 'web-1',
  namespace: 'default',
  uid: 'u-1',
  nodeName: 'ce-a-n0',
  serviceAccountName: 'default',
  podIP: '10.244.0.5',
  hostIP: '10.244.0.1',
  labels: { app: 'web' },
  annotations: { note: 'x' },
};

const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { MODE: 'fast', 'bad key': 'skipped' } };
const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, data: { PASSWORD: Buffer.from('s3cret').toString('base64') } };
const source = { configMap: (_: string, name: string) => (name === 'cfg' ? configMap : undefined), secret: (_: string, name: string) => (name === 'sec' ? secret : undefined) };

describe('container environment', () => {
  it('expands $(VAR) against what came before, keeps unknown references and unescapes $$', () => {
    const defined = new Map([['A', 'one']]);
    assert.equal(expandReferences('$(A)-$(B)-$$(A)', defined), 'one-$(B)-$(A)');
  });

  it('reads the downward API fields kubelet offers to env', () => {
    assert.equal(downwardField(facts, 'status.podIP'), '10.244.0.5');
    assert.equal(downwardField(facts, "metadata.labels['app']"), 'web');
    assert.throws(() => downwardField(facts, 'spec.nope'), ContainerConfigError);
  });

  it('divides container resources by the divisor, rounding up', () => {
    const container = { name: 'c', resources: { limits: { cpu: '250m', memory: '64Mi' } } };
    assert.equal(resourceFieldValue(container, 'limits.cpu', undefined), '1');
    assert.equal(resourceFieldValue(container, 'limits.cpu', '1m'), '250');
    assert.equal(resourceFieldValue(container, 'limits.memory', '1Mi'), '64');
  });

  it('builds envFrom then env in order, from ConfigMaps and Secrets, failing on a missing one unless optional', () => {
    const env = containerEnvironment(
      {},
      {
        name: 'c',
        envFrom: [{ configMapRef: { name: 'cfg' }, prefix: 'CFG_' }],
        env: [
          { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'GREETING', value: 'hi $(POD) $(CFG_MODE)' },
          { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'sec', key: 'PASSWORD' } } },
          { name: 'OPTIONAL', valueFrom: { configMapKeyRef: { name: 'absent', key: 'x', optional: true } } },
        ],
      },
      facts,
      source,
    );
    assert.deepEqual([...env], [
      ['CFG_MODE', 'fast'],
      ['POD', 'web-1'],
      ['GREETING', 'hi web-1 fast'],
      ['PASSWORD', 's3cret'],
    ]);
    assert.throws(() => containerEnvironment({}, { name: 'c', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'absent', key: 'x' } } }] }, facts, source), /configmap "absent" not found/);
  });
});
