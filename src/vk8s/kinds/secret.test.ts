import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { goJsonObjectError } from './core-secret-rules.js';
import { secretStrategy } from './secret.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);
const b64 = (text: string): string => Buffer.from(text).toString('base64');

function secret(fields: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  const object: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', ...(annotations ? { annotations } : {}) }, ...fields };
  secretStrategy.defaults(object);
  return object;
}
const check = (fields: Record<string, unknown>, annotations?: Record<string, string>): string[] => lines(secretStrategy.validate(secret(fields, annotations), context));

describe('Secret strategy', () => {
  it('secret defaults the type to Opaque and merges stringData into data', () => {
    const object = secret({ data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'ünï' } });
    assert.equal(object.type, 'Opaque');
    assert.deepEqual(object.data, { a: b64('new'), b: b64('keep'), c: b64('ünï') });
    assert.equal(object.stringData, undefined);
    assert.equal(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }).type, 'kubernetes.io/tls');
  });

  it('secret validation checks data keys like config-map keys', () => {
    assert.deepEqual(check({ data: { 'a.b_C-1': b64('x') } }), []);
    assert.deepEqual(check({ data: { 'a b': '' } }), [
      "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    assert.deepEqual(check({ data: { '..': '' } }), ["data[..]: Invalid value: \"..\": must not be '..'"]);
    assert.deepEqual(check({ data: { '..x': '' } }), ["data[..x]: Invalid value: \"..x\": must not start with '..'"]);
  });

  it('secret validation limits the decoded data to 1 MiB', () => {
    const exactly = Buffer.alloc(1024 * 1024, 1).toString('base64');
    assert.deepEqual(check({ data: { a: exactly } }), []);
    assert.deepEqual(secretStrategy.validate(secret({ data: { a: exactly, b: b64('x') } }), context), [
      { reason: 'FieldValueTooLong', field: 'data', message: 'Too long: must have at most 1048576 bytes' },
    ]);
  });

  it('secret validation requires the keys of each well-known type', () => {
    assert.deepEqual(check({ type: 'kubernetes.io/service-account-token' }), ['metadata.annotations[kubernetes.io/service-account.name]: Required value']);
    assert.deepEqual(check({ type: 'kubernetes.io/service-account-token' }, { 'kubernetes.io/service-account.name': 'default' }), []);
    assert.deepEqual(check({ type: 'kubernetes.io/dockercfg' }), ['data[.dockercfg]: Required value']);
    assert.deepEqual(check({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }), []);
    assert.deepEqual(check({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('nope') } }), [
      "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": invalid character 'o' in literal null (expecting 'u')",
    ]);
    assert.deepEqual(check({ type: 'kubernetes.io/basic-auth' }), ['data[%s][username]: Required value', 'data[%s][password]: Required value']);
    assert.deepEqual(check({ type: 'kubernetes.io/basic-auth', data: { password: '' } }), []);
    assert.deepEqual(check({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }), ['data[%s][ssh-privatekey]: Required value']);
    assert.deepEqual(check({ type: 'kubernetes.io/tls', data: { 'tls.key': b64('k') } }), ['data[tls.crt]: Required value']);
    assert.deepEqual(check({ type: 'example.com/custom' }), []);
  });

  it('goJsonObjectError words the common json.Unmarshal failures like Go', () => {
    assert.equal(goJsonObjectError('{}'), undefined);
    assert.equal(goJsonObjectError('null'), undefined);
    assert.equal(goJsonObjectError(''), 'unexpected end of JSON input');
    assert.equal(goJsonObjectError('{"a":'), 'unexpected end of JSON input');
    assert.equal(goJsonObjectError('[1]'), 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    assert.equal(goJsonObjectError('"x"'), 'json: cannot unmarshal string into Go value of type map[string]interface {}');
    assert.equal(goJsonObjectError('x'), "invalid character 'x' looking for beginning of value");
    assert.equal(goJsonObjectError('tru'), 'unexpected end of JSON input');
    assert.equal(goJsonObjectError('fals3'), "invalid character '3' in literal false (expecting 'e')");
    assert.equal(goJsonObjectError('true'), 'json: cannot unmarshal bool into Go value of type map[string]interface {}');
  });

  it('secret update keeps the type immutable', () => {
    const old = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } });
    const next = secret({ data: { 'tls.crt': '', 'tls.key': '' } });
    assert.deepEqual(lines(secretStrategy.validateUpdate(next, old, context)), ['type: Invalid value: "Opaque": field is immutable']);
    assert.deepEqual(secretStrategy.validateUpdate(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': '' } }), old, context), []);
  });

  it('secret type is a field-selector field', () => {
    assert.deepEqual(secretStrategy.selectableFields(secret({})), { type: 'Opaque' });
  });
});
