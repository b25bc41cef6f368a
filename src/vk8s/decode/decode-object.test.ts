import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { decodeObject } from './decode-object.js';
import type { ExpectedKind } from './decode-object.js';
import { SERVED_OBJECTS } from './testing/served-objects.js';

const DEPLOYMENT: ExpectedKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
const POD: ExpectedKind = { group: '', version: 'v1', kind: 'Pod' };
const SERVICE: ExpectedKind = { group: '', version: 'v1', kind: 'Service' };
const SECRET: ExpectedKind = { group: '', version: 'v1', kind: 'Secret' };
const CONFIG_MAP: ExpectedKind = { group: '', version: 'v1', kind: 'ConfigMap' };
const QUANTITY_RE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function badRequest(run: () => unknown, message: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof StatusError, String(error));
    assert.equal(error.reason, 'BadRequest');
    assert.equal(error.code, 400);
    assert.equal(error.message, message);
    return true;
  });
}

const pod = (container: Record<string, unknown>, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'i', ...container }], ...spec },
});
const inContainer = 'Pod in version "v1" cannot be handled as a Pod: v1.Pod.Spec: v1.PodSpec.Containers: []v1.Container: ';

describe('decodeObject', () => {
  it('decodeObject returns realistic objects of every served kind unchanged', () => {
    for (const { expected, body } of SERVED_OBJECTS) {
      const before = structuredClone(body);
      assert.deepEqual(decodeObject(body, expected), body, expected.kind);
      assert.deepEqual(body, before, `${expected.kind}: the input is not modified`);
    }
  });

  it('decodeObject normalises values as Go re-encodes them', () => {
    const decoded = decodeObject(
      pod(
        { resources: { limits: { cpu: 0.5, memory: 1073741824 }, requests: { cpu: 1, memory: '1024Mi', 'example.com/gpu': '2' } } },
        { activeDeadlineSeconds: 60 },
      ),
      POD,
    );
    const spec = decoded.spec as { containers: Array<{ resources: unknown }> };
    assert.deepEqual(spec.containers[0]?.resources, { limits: { cpu: '500m', memory: '1073741824' }, requests: { cpu: '1', memory: '1Gi', 'example.com/gpu': '2' } });

    const times = decodeObject({ metadata: { name: 'p', creationTimestamp: '2020-01-01T01:30:00+02:00', deletionTimestamp: '0001-01-01T00:00:00Z' } }, POD);
    assert.deepEqual(times.metadata, { name: 'p', creationTimestamp: '2019-12-31T23:30:00Z' });

    const secret = decodeObject({ metadata: { name: 's' }, data: { a: 'aGVs\nbG8=', b: [104, 105], c: '' } }, SECRET);
    assert.deepEqual(secret.data, { a: 'aGVsbG8=', b: 'aGk=', c: '' });
  });

  it('decodeObject defaults a missing kind and apiVersion to the endpoint\'s, as 1.17 does', () => {
    const decoded = decodeObject({ metadata: { name: 'c' }, data: { a: '1' } }, CONFIG_MAP);
    assert.deepEqual(decoded, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
    assert.equal(decodeObject({ apiVersion: 'apps/', metadata: {} }, DEPLOYMENT).apiVersion, 'apps/v1');
    assert.deepEqual(decodeObject(null, CONFIG_MAP), { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
  });

  it('decodeObject drops unknown fields and nulls, and fills null list elements and map values with zero values', () => {
    const decoded = decodeObject(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        bogus: 1,
        metadata: { name: 'p', creationTimestamp: null, labels: { a: null }, Name: 'ignored (case-sensitive)' },
        spec: { containers: [{ name: 'c', image: 'i', args: [null, 'x'], extra: { deep: true } }, null], nodeName: null },
        status: null,
      },
      POD,
    );
    assert.deepEqual(decoded, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { a: '' } },
      spec: { containers: [{ name: 'c', image: 'i', args: ['', 'x'] }, {}] },
    });
  });

  it('decodeObject rejects unknown fields in strict mode with their paths, and reports them when asked', () => {
    const body = { metadata: { name: 'd', bogus: 1 }, spec: { bogus: true, template: { spec: { containers: [{ name: 'c' }, { name: 'd', restartPolicy: 'Always' }] } } } };
    badRequest(
      () => decodeObject(body, DEPLOYMENT, { strict: true }),
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "metadata.bogus", unknown field "spec.bogus", unknown field "spec.template.spec.containers[1].restartPolicy"',
    );
    const unknownFields: string[] = [];
    decodeObject(body, DEPLOYMENT, { unknownFields });
    assert.deepEqual(unknownFields, ['metadata.bogus', 'spec.bogus', 'spec.template.spec.containers[1].restartPolicy']);
    assert.doesNotThrow(() => decodeObject(SERVED_OBJECTS[0]?.body, DEPLOYMENT, { strict: true }));
  });

  it('decodeObject reports wrong scalar types with json-iterator\'s path and message', () => {
    const replicas = 'Deployment in version "v1" cannot be handled as a Deployment: v1.Deployment.Spec: v1.DeploymentSpec.Replicas: ';
    badRequest(() => decodeObject({ spec: { replicas: '3' } }, DEPLOYMENT), `${replicas}readUint32: unexpected character: \ufffd`);
    badRequest(() => decodeObject({ spec: { replicas: 1.5 } }, DEPLOYMENT), `${replicas}assertInteger: can not decode float as int`);
    badRequest(() => decodeObject({ spec: { replicas: 2147483648 } }, DEPLOYMENT), `${replicas}ReadInt32: overflow: 2147483648`);
    badRequest(() => decodeObject({ spec: { replicas: -2147483649 } }, DEPLOYMENT), `${replicas}ReadInt32: overflow: 2147483649`);
    badRequest(() => decodeObject({ spec: { replicas: 4294967296 } }, DEPLOYMENT), `${replicas}readUint32: overflow`);
    assert.equal((decodeObject({ spec: { replicas: -2147483648 } }, DEPLOYMENT).spec as { replicas: number }).replicas, -2147483648);
    badRequest(
      () => decodeObject(pod({}, { terminationGracePeriodSeconds: '30' }), POD),
      'Pod in version "v1" cannot be handled as a Pod: v1.Pod.Spec: v1.PodSpec.TerminationGracePeriodSeconds: readUint64: unexpected character: \ufffd',
    );
    badRequest(() => decodeObject(pod({}, { hostNetwork: 'true' }), POD), 'Pod in version "v1" cannot be handled as a Pod: v1.Pod.Spec: v1.PodSpec.HostNetwork: ReadBool: expect t or f, but found "');
    badRequest(() => decodeObject(pod({ image: 7 }), POD), `${inContainer}v1.Container.Image: ReadString: expects " or n, but found 7`);
    badRequest(() => decodeObject(pod({ ports: [{ containerPort: '80' }] }), POD), `${inContainer}v1.Container.Ports: []v1.ContainerPort: v1.ContainerPort.ContainerPort: readUint32: unexpected character: \ufffd`);
    badRequest(() => decodeObject(pod({ tty: 'yes' }), POD), `${inContainer}v1.Container.TTY: ReadBool: expect t or f, but found "`);
  });

  it('decodeObject reports wrong structure types with json-iterator\'s messages', () => {
    badRequest(() => decodeObject({ spec: 'x' }, DEPLOYMENT), 'Deployment in version "v1" cannot be handled as a Deployment: v1.Deployment.Spec: readObjectStart: expect { or n, but found "');
    badRequest(
      () => decodeObject({ metadata: { labels: { a: 1 } } }, DEPLOYMENT),
      'Deployment in version "v1" cannot be handled as a Deployment: v1.Deployment.ObjectMeta: v1.ObjectMeta.Labels: ReadString: expects " or n, but found 1',
    );
    badRequest(
      () => decodeObject({ metadata: { labels: ['a'] } }, DEPLOYMENT),
      'Deployment in version "v1" cannot be handled as a Deployment: v1.Deployment.ObjectMeta: v1.ObjectMeta.Labels: ReadMapCB: expect { or n, but found [',
    );
    badRequest(() => decodeObject(pod({}, { containers: { name: 'c' } }), POD), 'Pod in version "v1" cannot be handled as a Pod: v1.Pod.Spec: v1.PodSpec.Containers: []v1.Container: decode slice: expect [ or n, but found {');
    badRequest(() => decodeObject(pod({ args: 'x' }), POD), `${inContainer}v1.Container.Args: []string: decode slice: expect [ or n, but found "`);
    badRequest(() => decodeObject(pod({ args: [1] }), POD), `${inContainer}v1.Container.Args: []string: ReadString: expects " or n, but found 1`);
    badRequest(() => decodeObject(pod({ env: ['A=1'] }), POD), `${inContainer}v1.Container.Env: []v1.EnvVar: readObjectStart: expect { or n, but found "`);
  });

  it('decodeObject checks int-or-string, quantity, time and base64 fields', () => {
    const port = 'Service in version "v1" cannot be handled as a Service: v1.Service.Spec: v1.ServiceSpec.Ports: []v1.ServicePort: v1.ServicePort.TargetPort: unmarshalerDecoder: ';
    const service = (targetPort: unknown): unknown => ({ spec: { ports: [{ port: 80, targetPort }] } });
    badRequest(() => decodeObject(service(true), SERVICE), `${port}json: cannot unmarshal bool into Go value of type int32`);
    badRequest(() => decodeObject(service(1.5), SERVICE), `${port}json: cannot unmarshal number 1.5 into Go value of type int32`);
    badRequest(() => decodeObject(service(3000000000), SERVICE), `${port}json: cannot unmarshal number 3000000000 into Go value of type int32`);
    badRequest(() => decodeObject(service({}), SERVICE), `${port}json: cannot unmarshal object into Go value of type int32`);

    const limits = `${inContainer}v1.Container.Resources: v1.ResourceRequirements.Limits: unmarshalerDecoder: `;
    badRequest(() => decodeObject(pod({ resources: { limits: { cpu: 'lots' } } }), POD), `${limits}${QUANTITY_RE}`);
    badRequest(() => decodeObject(pod({ resources: { limits: { cpu: true } } }), POD), `${limits}${QUANTITY_RE}`);

    const created = 'ConfigMap in version "v1" cannot be handled as a ConfigMap: v1.ConfigMap.ObjectMeta: v1.ObjectMeta.CreationTimestamp: unmarshalerDecoder: ';
    badRequest(() => decodeObject({ metadata: { creationTimestamp: 'yesterday' } }, CONFIG_MAP), `${created}parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`);
    badRequest(() => decodeObject({ metadata: { creationTimestamp: 1577836800 } }, CONFIG_MAP), `${created}json: cannot unmarshal number into Go value of type string`);
    badRequest(
      () => decodeObject({ eventTime: '2020-01-02T03:04:05Z' }, { group: '', version: 'v1', kind: 'Event' }),
      'Event in version "v1" cannot be handled as a Event: v1.Event.EventTime: unmarshalerDecoder: parsing time "2020-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );

    badRequest(() => decodeObject({ data: { a: 'not base64!' } }, SECRET), 'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: decode base64: illegal base64 data at input byte 3');
    badRequest(() => decodeObject({ binaryData: { a: 'aGVsbG8' } }, CONFIG_MAP), 'ConfigMap in version "v1" cannot be handled as a ConfigMap: v1.ConfigMap.BinaryData: decode base64: illegal base64 data at input byte 4');
    badRequest(() => decodeObject({ data: { a: 5 } }, SECRET), 'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: base64Codec: invalid input');
    badRequest(() => decodeObject({ data: { a: [300] } }, SECRET), 'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: []uint8: ReadUint8: overflow: 300');
  });

  it('decodeObject checks TypeMeta as kube-apiserver 1.17 does', () => {
    badRequest(() => decodeObject({ apiVersion: 'apps/v1beta1', kind: 'Deployment' }, DEPLOYMENT), 'the API version in the data (apps/v1beta1) does not match the expected API version (apps/v1)');
    badRequest(() => decodeObject({ apiVersion: 'extensions/v1beta1', kind: 'Deployment' }, DEPLOYMENT), 'the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)');
    badRequest(
      () => decodeObject({ apiVersion: 'apps/v1', kind: 'StatefulSet' }, DEPLOYMENT),
      'StatefulSet in version "v1" cannot be handled as a Deployment: converting (v1.StatefulSet) to (apps.Deployment): unknown conversion',
    );
    badRequest(() => decodeObject({ apiVersion: 'v1', kind: 'Secret' }, CONFIG_MAP), 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion');
    badRequest(
      () => decodeObject({ apiVersion: 'v1', kind: 'Deploymnet' }, CONFIG_MAP),
      'Deploymnet in version "v1" cannot be handled as a ConfigMap: no kind "Deploymnet" is registered for version "v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
    );
    badRequest(
      () => decodeObject({ apiVersion: 'apps/v1', kind: 'ConfigMap' }, CONFIG_MAP),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
    );
    badRequest(() => decodeObject({ apiVersion: 'foo/', kind: 'ConfigMap' }, CONFIG_MAP), 'ConfigMap in version "" cannot be handled as a ConfigMap: Object \'apiVersion\' is missing in \'{"apiVersion":"foo/","kind":"ConfigMap"}\'');
    badRequest(
      () => decodeObject({ apiVersion: 'a/b/c' }, CONFIG_MAP, { body: Buffer.from('{"apiVersion": "a/b/c"}') }),
      'the object provided is unrecognized (must be of type ConfigMap): unexpected GroupVersion string: a/b/c ({"apiVersion": "a/b/c"})',
    );
    badRequest(
      () => decodeObject({ kind: 5 }, CONFIG_MAP),
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5})',
    );
    badRequest(
      () => decodeObject(['a'], CONFIG_MAP),
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b2261225d)',
    );
  });
});
