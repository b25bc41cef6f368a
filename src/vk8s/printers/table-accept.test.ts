import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateMediaType, parseAccept } from './media-type-negotiation.js';
import { parseTableAccept } from './table-accept.js';

const KUBECTL_GET = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('parseTableAccept', () => {
  it('parseTableAccept recognises what kubectl get sends', () => {
    assert.deepEqual(parseTableAccept(KUBECTL_GET), { as: 'Table', version: 'v1', mediaType: 'application/json' });
  });

  it('parseTableAccept accepts the v1beta1 Table', () => {
    assert.deepEqual(parseTableAccept('application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json'), { as: 'Table', version: 'v1beta1', mediaType: 'application/json' });
  });

  it('parseTableAccept lets the first acceptable entry win', () => {
    assert.equal(parseTableAccept('application/json, application/json;as=Table;v=v1;g=meta.k8s.io'), undefined, 'plain JSON first');
    assert.equal(parseTableAccept('application/json'), undefined);
    assert.equal(parseTableAccept('*/*'), undefined);
    assert.equal(parseTableAccept(undefined), undefined);
    assert.equal(parseTableAccept(''), undefined);
  });

  it('parseTableAccept orders by q before position', () => {
    assert.deepEqual(parseTableAccept('application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io'), { as: 'Table', version: 'v1', mediaType: 'application/json' });
    assert.equal(parseTableAccept('application/json;as=Table;v=v1;g=meta.k8s.io;q=0.9, application/json'), undefined);
  });

  it('parseTableAccept skips Table entries the server cannot honour and falls back', () => {
    assert.equal(parseTableAccept('application/json;as=Table;v=v2;g=meta.k8s.io, application/json'), undefined, 'unknown version');
    assert.equal(parseTableAccept('application/json;as=Table;v=v1;g=example.com, application/json'), undefined, 'other group');
    assert.equal(parseTableAccept('application/json;as=Table;v=v1, application/json'), undefined, 'no group');
    assert.equal(parseTableAccept('application/json;as=Tabular;v=v1;g=meta.k8s.io'), undefined, 'unknown kind, nothing acceptable');
    assert.deepEqual(
      parseTableAccept('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json'),
      { as: 'Table', version: 'v1', mediaType: 'application/json' },
      'no protobuf Tables in 1.17',
    );
    assert.equal(parseTableAccept('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io'), undefined, 'metadata only');
  });

  it('parseTableAccept matches wildcard ranges against the server serializers', () => {
    assert.deepEqual(parseTableAccept('*/*;as=Table;v=v1;g=meta.k8s.io'), { as: 'Table', version: 'v1', mediaType: 'application/json' });
    assert.deepEqual(parseTableAccept('application/*;as=Table;v=v1;g=meta.k8s.io'), { as: 'Table', version: 'v1', mediaType: 'application/json' });
    assert.equal(parseTableAccept('application/yaml;as=Table;v=v1;g=meta.k8s.io'), undefined, 'yaml not served by default');
    assert.deepEqual(parseTableAccept('application/yaml;as=Table;v=v1;g=meta.k8s.io', ['application/json', 'application/yaml']), { as: 'Table', version: 'v1', mediaType: 'application/yaml' });
  });

  it('parseTableAccept tolerates spaces and extra parameters', () => {
    assert.deepEqual(parseTableAccept(' application/json ; as=Table ; v=v1 ; g=meta.k8s.io ; pretty=1 '), { as: 'Table', version: 'v1', mediaType: 'application/json' });
  });
});

describe('parseAccept', () => {
  it('parseAccept sorts like goautoneg and keeps header order among equals', () => {
    const order = parseAccept('text/*;q=0.5, */*;q=0.1, application/json, application/yaml, text/plain;q=0.5').map((c) => `${c.type}/${c.subType};${c.q}`);
    assert.deepEqual(order, ['application/json;1', 'application/yaml;1', 'text/plain;0.5', 'text/*;0.5', '*/*;0.10000000149011612']);
  });

  it('parseAccept drops malformed ranges and reads a bad q as 0', () => {
    const clauses = parseAccept('application, a/b/c, *, application/json;q=x');
    // goautoneg puts a concrete type before a wildcard even when its q is lower.
    assert.deepEqual(clauses.map((c) => [c.type, c.subType, c.q]), [['application', 'json', 0], ['*', '*', 1]]);
  });
});

describe('negotiateMediaType', () => {
  it('negotiateMediaType takes the first serializer for an empty header and refuses what it cannot serve', () => {
    assert.deepEqual(negotiateMediaType(undefined, ['application/json']), { mediaType: 'application/json', pretty: false });
    assert.equal(negotiateMediaType('text/html', ['application/json']), undefined);
    assert.equal(negotiateMediaType('application/json;stream=other', ['application/json']), undefined);
    assert.deepEqual(negotiateMediaType('application/json;stream=watch', ['application/json']), { mediaType: 'application/json', stream: 'watch', pretty: false });
    assert.deepEqual(negotiateMediaType('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', ['application/json']), {
      mediaType: 'application/json',
      convert: { group: 'meta.k8s.io', version: 'v1', kind: 'PartialObjectMetadataList' },
      pretty: false,
    });
  });
});
