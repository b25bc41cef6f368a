import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SITE_STATES } from '../../config/kinds/site.js';
import { siteWorkRule, type SiteWork } from './site-work-rule.js';

describe('site work rule', () => {
  it('site work rule gives new work only to online sites and sites without a state', () => {
    const expected: Record<(typeof SITE_STATES)[number], SiteWork> = {
      ONLINE: 'new-work',
      PROVISIONING: 'keep-work',
      UPGRADING: 'keep-work',
      STANDBY: 'keep-work',
      FAILED: 'keep-work',
      DECOMMISSIONING: 'no-work',
      WAITING_FOR_REGISTRATION: 'keep-work',
    };
    for (const state of SITE_STATES) assert.equal(siteWorkRule(state), expected[state], state);
    assert.equal(siteWorkRule(undefined), 'new-work');
  });
});
