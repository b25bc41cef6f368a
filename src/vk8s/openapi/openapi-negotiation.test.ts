import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptsGzip, ifNoneMatchMatches, negotiateOpenApiFormat, OPENAPI_PROTOBUF_TYPE } from './openapi-negotiation.js';

describe('openapi negotiation', () => {
  it('negotiateOpenApiFormat picks protobuf for the gnostic media type, JSON for json and wildcards', () => {
    assert.equal(negotiateOpenApiFormat(OPENAPI_PROTOBUF_TYPE), 'protobuf');
    assert.equal(negotiateOpenApiFormat('application/json'), 'json');
    assert.equal(negotiateOpenApiFormat('application/json, */*'), 'json');
    assert.equal(negotiateOpenApiFormat('*/*'), 'json');
    assert.equal(negotiateOpenApiFormat('application/*'), 'json');
    assert.equal(negotiateOpenApiFormat(undefined), 'json');
    assert.equal(negotiateOpenApiFormat(''), 'json');
  });

  it('negotiateOpenApiFormat orders ranges by quality, then specificity', () => {
    assert.equal(negotiateOpenApiFormat(`application/json;q=0.5, ${OPENAPI_PROTOBUF_TYPE}`), 'protobuf');
    assert.equal(negotiateOpenApiFormat(`*/*, ${OPENAPI_PROTOBUF_TYPE}`), 'protobuf');
    assert.equal(negotiateOpenApiFormat(`${OPENAPI_PROTOBUF_TYPE};q=0, application/json`), 'json');
  });

  it('negotiateOpenApiFormat finds nothing for other media types', () => {
    assert.equal(negotiateOpenApiFormat('text/html'), undefined);
    assert.equal(negotiateOpenApiFormat('application/yaml, text/*'), undefined);
    assert.equal(negotiateOpenApiFormat('application/com.github.proto-openapi.spec.v3@v1.0+protobuf'), undefined);
    assert.equal(negotiateOpenApiFormat('application/json;q=0'), undefined);
  });

  it('acceptsGzip honours q=0', () => {
    assert.equal(acceptsGzip('gzip'), true);
    assert.equal(acceptsGzip('deflate, gzip;q=0.5'), true);
    assert.equal(acceptsGzip('gzip;q=0'), false);
    assert.equal(acceptsGzip('br'), false);
    assert.equal(acceptsGzip(undefined), false);
  });

  it('ifNoneMatchMatches compares weakly, in lists, and with *', () => {
    assert.equal(ifNoneMatchMatches('"AB"', '"AB"'), true);
    assert.equal(ifNoneMatchMatches('W/"AB"', '"AB"'), true);
    assert.equal(ifNoneMatchMatches('"X", "AB"', '"AB"'), true);
    assert.equal(ifNoneMatchMatches('*', '"AB"'), true);
    assert.equal(ifNoneMatchMatches('"ab"', '"AB"'), false);
    assert.equal(ifNoneMatchMatches(undefined, '"AB"'), false);
  });
});
