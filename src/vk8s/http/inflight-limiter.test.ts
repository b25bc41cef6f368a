import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InflightLimiter, isLongRunning } from './inflight-limiter.js';

describe('InflightLimiter', () => {
  it('limits read-only and mutating requests separately and frees slots once', () => {
    const limiter = new InflightLimiter({ readOnly: 1, mutating: 1 });
    const read = limiter.acquire('GET');
    assert.ok(read);
    assert.equal(limiter.acquire('GET'), undefined);
    const write = limiter.acquire('POST');
    assert.ok(write);
    assert.equal(limiter.acquire('PATCH'), undefined);
    read();
    read();
    assert.ok(limiter.acquire('GET'));
    assert.equal(limiter.acquire('GET'), undefined, 'a second release does not free another slot');
  });
});

describe('isLongRunning', () => {
  it('recognises watches, log follows and stream subresources', () => {
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods?watch=true'), true);
    assert.equal(isLongRunning('/x/api/v1/watch/namespaces/n/pods'), true);
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods/p/log?follow=true'), true);
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods/p/exec?command=ls'), true);
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods/p/log'), false);
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods'), false);
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods?limit=500&labelSelector=a%3Db'), false);
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods?%77atch=1'), true, 'a percent-encoded name');
    assert.equal(isLongRunning('/x/api/v1/namespaces/n/pods?limit=1?watch=true'), false, 'only the first query part counts');
  });
});
