import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { decodeBody } from './decode-body.js';

const UNSUPPORTED = 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf';

function rejects(run: () => unknown, code: number, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof StatusError);
    assert.equal(error.code, code);
    assert.equal(error.message, message);
    return true;
  });
}

describe('decodeBody', () => {
  it('decodeBody reads JSON without a Content-Type, as kubectl create configmap sends it', () => {
    const body = Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}');
    assert.deepEqual(decodeBody(body, undefined), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
    assert.deepEqual(decodeBody(Buffer.from('{"a":1}'), ''), { a: 1 });
    assert.deepEqual(decodeBody(Buffer.from('{"a":1}'), 'application/json; charset=utf-8'), { a: 1 });
    assert.deepEqual(decodeBody(Buffer.from('{"a":1}'), 'Application/JSON'), { a: 1 });
  });

  it('decodeBody reads YAML as go-yaml v2 does: YAML 1.1 scalars and keys, timestamps as strings, the first document only', () => {
    const yaml = 'kind: ConfigMap\nmetadata:\n  name: c\n  labels: {on: yes, n: off}\ndata:\n  when: 2020-01-01\n  mode: 0777\nbase: &b {x: 1}\nmerged:\n  <<: *b\n  y: 2\n---\nkind: Secret\n';
    assert.deepEqual(decodeBody(Buffer.from(yaml), 'application/yaml'), {
      kind: 'ConfigMap',
      metadata: { name: 'c', labels: { true: true, false: false } },
      data: { when: '2020-01-01', mode: 511 },
      base: { x: 1 },
      merged: { x: 1, true: 2 },
    });
    assert.equal(decodeBody(Buffer.from(''), 'application/yaml'), null);
  });

  it('decodeBody answers 415 for unknown media types', () => {
    for (const contentType of ['text/plain', 'application/json-patch+json', 'application/json; charset', 'nonsense']) {
      rejects(() => decodeBody(Buffer.from('{}'), contentType), 415, UNSUPPORTED);
    }
  });

  it("decodeBody answers 400 for malformed JSON in kube-apiserver's words", () => {
    rejects(
      () => decodeBody(Buffer.from('{"apiVersion":"v1","kind":"ConfigMap",'), 'application/json', 'ConfigMap'),
      400,
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)',
    );
    rejects(
      () => decodeBody(Buffer.from('kind: x'), undefined, 'ConfigMap'),
      400,
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'k' looking for beginning of value (6b696e643a2078)",
    );
    rejects(() => decodeBody(Buffer.from(''), undefined, 'Pod'), 400, "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)");
    rejects(() => decodeBody(Buffer.from('{"a":}'), undefined), 400, "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value");
  });

  it('decodeBody answers 400 for malformed YAML naming the line', () => {
    rejects(
      () => decodeBody(Buffer.from('kind: ConfigMap\nmetadata:\n  name: [c\n'), 'application/yaml', 'ConfigMap'),
      400,
      'the object provided is unrecognized (must be of type ConfigMap): yaml: line 4: Flow sequence in block collection must be sufficiently indented and end with a ] (6b696e643a20436f6e6669674d61700a6d657461646174613a0a20206e61 ...)',
    );
    rejects(() => decodeBody(Buffer.from('a: .inf\n'), 'application/yaml', 'ConfigMap'), 400, 'the object provided is unrecognized (must be of type ConfigMap): json: unsupported value: +Inf (613a202e696e660a)');
  });
});
