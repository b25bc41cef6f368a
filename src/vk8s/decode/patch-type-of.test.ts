import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { patchTypeOf } from './patch-type-of.js';

const UNSUPPORTED =
  'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml';

describe('patchTypeOf', () => {
  it('patchTypeOf classifies the four patch media types, ignoring parameters', () => {
    assert.equal(patchTypeOf('application/json-patch+json'), 'json');
    assert.equal(patchTypeOf('application/merge-patch+json; charset=utf-8'), 'merge');
    assert.equal(patchTypeOf('application/strategic-merge-patch+json'), 'strategic');
    assert.equal(patchTypeOf('application/apply-patch+yaml'), 'apply');
  });

  it("patchTypeOf answers 415 with kube's list for anything else", () => {
    for (const contentType of [undefined, '', 'application/json', 'Application/Merge-Patch+json', ' application/json-patch+json', 'text/plain']) {
      assert.throws(
        () => patchTypeOf(contentType),
        (error: unknown) => error instanceof StatusError && error.code === 415 && error.reason === 'UnsupportedMediaType' && error.message === UNSUPPORTED,
        String(contentType),
      );
    }
  });
});
