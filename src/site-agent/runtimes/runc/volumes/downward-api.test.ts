import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResourceFieldSelector } from '../../../../api/pod-spec-types.js';
import { containerResourceValue, formatMap, podFieldValue } from './downward-api.js';
import { goQuote } from './go-quote.js';
import type { VolumePod } from './volume-types.js';

const pod: VolumePod = {
  metadata: { name: 'web-0', namespace: 'shop', uid: '7c1f-uid', labels: { 'b/key': 'two', a: 'one' }, annotations: { 'example.com/quote': 'say "hi"\\ \ttab\nline é\u00a0\u0001' } },
  spec: {
    initContainers: [{ name: 'init', resources: { limits: { cpu: '1' } } }],
    containers: [
      { name: 'app', resources: { limits: { cpu: '250m', memory: '64Mi', 'ephemeral-storage': '1Gi' }, requests: { cpu: '100m', memory: '1000' } } },
      { name: 'bare', resources: { limits: { memory: '0' } } },
    ],
  },
};

const allocatable = { cpu: '3500m', memory: '8Gi', 'ephemeral-storage': '100Gi' };
const value = (selector: ResourceFieldSelector): string => containerResourceValue(pod, selector, allocatable);

describe('downward API fields', () => {
  it('prints labels and annotations as sorted key="value" lines quoted as Go\'s %q does, with no final newline', () => {
    assert.equal(podFieldValue(pod, 'metadata.labels'), 'a="one"\nb/key="two"');
    assert.equal(podFieldValue(pod, 'metadata.annotations'), 'example.com/quote="say \\"hi\\"\\\\ \\ttab\\nline é\\u00a0\\x01"');
    assert.equal(formatMap(undefined), '');
    assert.equal(goQuote('😀\u200b\x7f'), '"😀\\u200b\\x7f"');
  });

  it('gives name, namespace, uid and subscripted labels and annotations; refuses the rest with kubelet\'s messages', () => {
    assert.deepEqual(['metadata.name', 'metadata.namespace', 'metadata.uid'].map((path) => podFieldValue(pod, path)), ['web-0', 'shop', '7c1f-uid']);
    assert.equal(podFieldValue(pod, "metadata.labels['b/key']"), 'two');
    assert.equal(podFieldValue(pod, "metadata.annotations['missing']"), '');
    assert.throws(() => podFieldValue(pod, 'spec.nodeName'), { message: 'unsupported fieldPath: spec.nodeName' });
    assert.throws(() => podFieldValue(pod, "metadata.name['x']"), { message: 'fieldPath "metadata.name[\'x\']" does not support subscript' });
    assert.throws(() => podFieldValue(pod, "metadata.labels['bad key']"), /^Error: invalid key subscript in metadata.labels\['bad key'\]: /);
  });
});

describe('downward API resources', () => {
  it('divides by the divisor and rounds up: cpu in thousandths, memory and storage in units; default divisor 1', () => {
    assert.equal(value({ containerName: 'app', resource: 'limits.cpu' }), '1'); // 250m rounded up to a whole core
    assert.equal(value({ containerName: 'app', resource: 'limits.cpu', divisor: '1m' }), '250');
    assert.equal(value({ containerName: 'app', resource: 'requests.cpu', divisor: '1m' }), '100');
    assert.equal(value({ containerName: 'app', resource: 'limits.memory' }), String(64 * 1024 * 1024));
    assert.equal(value({ containerName: 'app', resource: 'limits.memory', divisor: '1Mi' }), '64');
    assert.equal(value({ containerName: 'app', resource: 'limits.memory', divisor: '1M' }), '68'); // 67.108864 up
    assert.equal(value({ containerName: 'app', resource: 'requests.memory', divisor: '1Ki' }), '1'); // 1000 bytes up
    assert.equal(value({ containerName: 'app', resource: 'limits.ephemeral-storage', divisor: '1Gi' }), '1');
    assert.equal(value({ containerName: 'app', resource: 'limits.cpu', divisor: '0' }), '1', 'a zero divisor means 1');
  });

  it('an unset or zero limit is the node\'s allocatable amount; an unset request is 0; init containers are found too', () => {
    assert.equal(value({ containerName: 'bare', resource: 'limits.cpu', divisor: '1m' }), '3500');
    assert.equal(value({ containerName: 'bare', resource: 'limits.memory', divisor: '1Gi' }), '8');
    assert.equal(value({ containerName: 'bare', resource: 'requests.memory' }), '0');
    assert.equal(value({ containerName: 'init', resource: 'limits.cpu' }), '1');
  });

  it('refuses unknown containers and resources', () => {
    assert.throws(() => value({ containerName: 'nope', resource: 'limits.cpu' }), { message: 'container nope not found' });
    assert.throws(() => value({ containerName: 'app', resource: 'limits.nvidia.com/gpu' }), { message: 'unsupported container resource : limits.nvidia.com/gpu' });
    assert.throws(() => value({ containerName: 'app', resource: 'limits.cpu', divisor: 'lots' }), /invalid divisor lots/);
  });
});
