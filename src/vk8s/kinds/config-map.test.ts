import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { configMapStrategy } from './config-map.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);
const configMap = (fields: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, ...fields });

describe('ConfigMap strategy', () => {
  it('config map validation accepts data and binaryData with distinct keys', () => {
    assert.deepEqual(configMapStrategy.validate(configMap({ data: { 'app.properties': 'a=1' }, binaryData: { logo: 'AAEC' } }), context), []);
  });

  it('config map validation checks keys of both maps', () => {
    assert.deepEqual(lines(configMapStrategy.validate(configMap({ data: { '.': '' }, binaryData: { 'a/b': '' } }), context)), [
      "data[.]: Invalid value: \".\": must not be '.'",
      "binaryData[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
  });

  it('config map validation rejects a key in both data and binaryData, as kube words it', () => {
    assert.deepEqual(configMapStrategy.validate(configMap({ data: { k: 'v' }, binaryData: { k: 'AA==' } }), context), [
      { reason: 'FieldValueInvalid', field: 'data[k]', message: 'Invalid value: "k": duplicate of key present in binaryData' },
    ]);
  });

  it('config map validation limits data and decoded binaryData to 1 MiB together', () => {
    const half = 'x'.repeat(512 * 1024);
    const binaryHalf = Buffer.alloc(512 * 1024).toString('base64');
    assert.deepEqual(configMapStrategy.validate(configMap({ data: { a: half }, binaryData: { b: binaryHalf } }), context), []);
    assert.deepEqual(configMapStrategy.validateUpdate(configMap({ data: { a: half, c: 'x' }, binaryData: { b: binaryHalf } }), configMap({}), context), [
      { reason: 'FieldValueTooLong', field: '', message: 'Too long: must have at most 1048576 bytes' },
    ]);
  });
});
