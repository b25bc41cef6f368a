import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventStrategy as strategy } from './event.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);
const event = (fields: Record<string, unknown>, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.15f2a1b2c3d4e5f6', namespace },
  ...fields,
});

describe('Event strategy', () => {
  it('event validation requires the involved object in the event namespace', () => {
    const involvedObject = { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u1' };
    assert.deepEqual(strategy.validate(event({ involvedObject, reason: 'Started', source: { component: 'kubelet' } }), context), []);
    assert.deepEqual(strategy.validate(event({ involvedObject: { kind: 'Node', name: 'n1' } }), context), [], 'empty involved namespace is fine in default');
    assert.deepEqual(lines(strategy.validate(event({ involvedObject: { ...involvedObject, namespace: 'prod' } }), context)), [
      'involvedObject.namespace: Invalid value: "prod": does not match event.namespace',
    ]);
    assert.deepEqual(lines(strategy.validate(event({ involvedObject: { kind: 'Node', name: 'n1' } }, 'prod'), context)), [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ]);
  });

  it('event validation puts events about cluster-scoped objects in the cluster namespace', () => {
    const inProd: StrategyContext = { ...context, cluster: { ...context.cluster, namespace: 'prod' } };
    assert.deepEqual(strategy.validate(event({ involvedObject: { kind: 'Node', name: 'n1' } }, 'prod'), inProd), []);
    assert.deepEqual(lines(strategy.validate(event({ involvedObject: { kind: 'Node', name: 'n1' } }, 'other'), inProd)), [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ]);
  });

  it('event validation requires the reporting fields of new-style events', () => {
    const involvedObject = { kind: 'Pod', namespace: 'default', name: 'web-0' };
    assert.deepEqual(lines(strategy.validate(event({ involvedObject, eventTime: '2020-01-01T00:00:00.000000Z' }), context)), [
      'reportingController: Required value',
      'reportingController: Invalid value: "": name part must be non-empty',
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]);
    const complete = { involvedObject, eventTime: '2020-01-01T00:00:00.000000Z', reportingComponent: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Scale', reason: 'Scaled' };
    assert.deepEqual(strategy.validate(event(complete), context), []);
    assert.deepEqual(lines(strategy.validate(event({ ...complete, message: 'm'.repeat(1025) }), context)), ['message: Invalid value: "": can have at most 1024 characters']);
  });

  it('event names are path segments and involvedObject fields are selectable', () => {
    assert.equal(strategy.nameRule, 'pathSegment');
    const fields = strategy.selectableFields(event({ involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u1', apiVersion: 'v1' }, reason: 'Started', type: 'Normal', reportingComponent: 'ctl' }));
    assert.deepEqual(fields, {
      'involvedObject.kind': 'Pod',
      'involvedObject.namespace': 'default',
      'involvedObject.name': 'web-0',
      'involvedObject.uid': 'u1',
      'involvedObject.apiVersion': 'v1',
      'involvedObject.resourceVersion': '',
      'involvedObject.fieldPath': '',
      reason: 'Started',
      source: 'ctl',
      type: 'Normal',
    });
  });
});
