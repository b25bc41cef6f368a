import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { OpenApiV2Document } from './openapi-v2-document.js';
import { OPENAPI_PROTOBUF_TYPE } from './openapi-negotiation.js';

const json = Buffer.from('{"swagger":"2.0"}');
const protobuf = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);
const builtAt = new Date('2026-01-02T03:04:05Z');
const sha512 = (body: Buffer): string => `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;

describe('OpenApiV2Document', () => {
  const document = new OpenApiV2Document({ json, protobuf }, builtAt);

  it('OpenApiV2Document serves protobuf as application/octet-stream with its own ETag', () => {
    const response = document.respond({ accept: OPENAPI_PROTOBUF_TYPE });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.body, protobuf);
    assert.deepEqual(response.headers, { 'content-type': 'application/octet-stream', etag: sha512(protobuf), 'last-modified': 'Fri, 02 Jan 2026 03:04:05 GMT', vary: 'Accept, Accept-Encoding' });
  });

  it('OpenApiV2Document serves JSON for application/json and */*', () => {
    for (const accept of ['application/json', '*/*', undefined]) {
      const response = document.respond({ accept });
      assert.deepEqual([response.statusCode, response.headers['content-type'], response.headers['etag']], [200, 'application/json', sha512(json)], String(accept));
      assert.deepEqual(response.body, json);
    }
    assert.notEqual(sha512(json), sha512(protobuf));
  });

  it('OpenApiV2Document answers 304 with no body when If-None-Match holds the representation ETag', () => {
    const etag = document.entity('protobuf').etag;
    const response = document.respond({ accept: OPENAPI_PROTOBUF_TYPE, ifNoneMatch: etag });
    assert.deepEqual(response, { statusCode: 304, headers: { etag, vary: 'Accept, Accept-Encoding' }, body: Buffer.alloc(0) });
    assert.equal(document.respond({ accept: 'application/json', ifNoneMatch: etag }).statusCode, 200, 'the JSON form has another ETag');
  });

  it('OpenApiV2Document answers 406 with a NotAcceptable Status when no form matches', () => {
    const response = document.respond({ accept: 'text/html' });
    assert.equal(response.statusCode, 406);
    assert.equal(response.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(response.body.toString()), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `only the following media types are accepted: application/json, ${OPENAPI_PROTOBUF_TYPE}`,
      reason: 'NotAcceptable',
      code: 406,
    });
  });

  it('OpenApiV2Document gzips when asked, keeping the ETag of the uncompressed form', () => {
    const response = document.respond({ accept: OPENAPI_PROTOBUF_TYPE, acceptEncoding: 'gzip, deflate' });
    assert.deepEqual([response.headers['content-encoding'], response.headers['etag']], ['gzip', sha512(protobuf)]);
    assert.deepEqual(gunzipSync(response.body), protobuf);
    assert.equal(document.respond({ accept: OPENAPI_PROTOBUF_TYPE, acceptEncoding: 'gzip' }).body, response.body, 'compressed once');
  });
});
