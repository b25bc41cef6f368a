import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isJsonContentType } from './json-content-type.js';
import { UnsealError } from './unseal-error.js';
import { parseUnsealRequest } from './unseal-request.js';

const LOCATION = 'string:///ZXlKaGJHY2lPaUpTVTBFdFQwRkZVQzB5TlRZaUxD';

function refused(body: string, message: RegExp): void {
  assert.throws(
    () => parseUnsealRequest(body),
    (error: unknown) => error instanceof UnsealError && error.code === 'InvalidRequest' && error.httpStatus === 400 && message.test(error.message),
  );
}

describe('parseUnsealRequest', () => {
  it('refuses a body nested 100,000 levels deep with 400 instead of overflowing the stack in its error message (issue 20: a 500)', () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    refused(`{"type":${deep},"provider":"vault","location":"v1/secret/data/app"}`, /^the body nests objects and arrays more than 16 levels deep/);
    refused(`{"type":"blindfold","location":${deep}}`, /more than 16 levels deep/);
    assert.deepEqual(parseUnsealRequest(JSON.stringify({ type: 'blindfold', location: LOCATION, key: '' })), { type: 'blindfold', location: LOCATION, encoding: 'EncodingNone' });
  });

  it('parseUnsealRequest reads a blindfold request, EncodingNone by default', () => {
    assert.deepEqual(parseUnsealRequest(JSON.stringify({ type: 'blindfold', location: LOCATION })), { type: 'blindfold', location: LOCATION, encoding: 'EncodingNone' });
    assert.deepEqual(parseUnsealRequest(Buffer.from(JSON.stringify({ type: 'blindfold', location: LOCATION, encoding_type: 'EncodingBase64' }))), { type: 'blindfold', location: LOCATION, encoding: 'EncodingBase64' });
  });

  it('parseUnsealRequest reads a vault request with and without key, version (text or number) and encoding', () => {
    assert.deepEqual(parseUnsealRequest('{"type":"vault","provider":"vault","location":"v1/secret/data/app"}'), { type: 'vault', provider: 'vault', location: 'v1/secret/data/app', encoding: 'EncodingNone' });
    assert.deepEqual(parseUnsealRequest('{"type":"vault","provider":"p","location":"v1/kv/x","key":"k","version":"3","encoding_type":"EncodingBase64"}'), {
      type: 'vault',
      provider: 'p',
      location: 'v1/kv/x',
      key: 'k',
      version: '3',
      encoding: 'EncodingBase64',
    });
    assert.deepEqual(parseUnsealRequest('{"type":"vault","provider":"p","location":"l","version":2}'), { type: 'vault', provider: 'p', location: 'l', version: '2', encoding: 'EncodingNone' });
  });

  it('parseUnsealRequest treats empty optional fields as absent, also those of the other type', () => {
    assert.deepEqual(parseUnsealRequest(JSON.stringify({ type: 'blindfold', location: LOCATION, encoding_type: '', provider: '', key: null, version: '' })), { type: 'blindfold', location: LOCATION, encoding: 'EncodingNone' });
    assert.deepEqual(parseUnsealRequest('{"type":"vault","provider":"p","location":"l","key":"","version":null}'), { type: 'vault', provider: 'p', location: 'l', encoding: 'EncodingNone' });
  });

  it('parseUnsealRequest refuses bodies that are not a request, naming what is wrong', () => {
    refused('', /not valid JSON/);
    refused('{"type":', /not valid JSON/);
    refused('[1]', /must be a JSON object/);
    refused('"blindfold"', /must be a JSON object/);
    refused('null', /must be a JSON object/);
    refused('{}', /^type: required, one of blindfold, vault$/);
    refused('{"type":"aws"}', /^type: "aws" is not one of blindfold, vault$/);
    refused('{"type":"blindfold"}', /^location: required/);
    refused('{"type":"blindfold","location":42}', /^location: must be a string/);
    refused(JSON.stringify({ type: 'blindfold', location: LOCATION, encoding_type: 'EncodingHex' }), /encoding_type: "EncodingHex" is not one of EncodingNone, EncodingBase64/);
    refused(JSON.stringify({ type: 'blindfold', location: LOCATION, encodingType: 'EncodingBase64' }), /^unknown field "encodingType": a blindfold request has type, location, encoding_type$/);
    refused(JSON.stringify({ type: 'blindfold', location: LOCATION, provider: 'vault', key: 'k' }), /^unknown fields "provider", "key"/);
    refused('{"type":"vault","location":"v1/kv/x"}', /^provider: required/);
    refused('{"type":"vault","provider":"p"}', /^location: required/);
    refused('{"type":"vault","provider":"p","location":"l","key":1}', /^key: must be a string$/);
    refused('{"type":"vault","provider":"p","location":"l","version":true}', /^version: must be a string \(or a number\)$/);
  });

  it('isJsonContentType accepts application/json in any case and with parameters, nothing else', () => {
    for (const ok of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', ' application/json ;charset=UTF-8']) assert.equal(isJsonContentType(ok), true, ok);
    for (const no of [undefined, '', 'text/plain', 'application/jsonx', 'application/merge-patch+json', 'application/x-www-form-urlencoded', 'json']) assert.equal(isJsonContentType(no), false, String(no));
  });
});
