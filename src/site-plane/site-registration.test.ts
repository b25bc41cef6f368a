import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeEvents, FakePlacement } from '../controllers/testing/controller-harness.js';
import { agentKeys } from './testing/site-plane-client.js';
import { startSitePlaneHarness, type SitePlaneHarness } from './testing/site-plane-harness.js';

type Answer = { status: number; body: string; json<T>(): T };

describe('site registration keeps sites and agent names with their agent', () => {
  let h: SitePlaneHarness;
  before(async () => {
    h = await startSitePlaneHarness({ graceSeconds: 30, placement: new FakePlacement(), events: new FakeEvents() });
  });
  after(() => h?.close());

  const token = async (body: Record<string, unknown>, as = (): string => h.platformToken): Promise<Answer> => h.call('POST', '/api/sites/v1/tokens', { token: as(), body });
  const tokenOf = async (body: Record<string, unknown>): Promise<string> => {
    const issued = await token(body);
    assert.equal(issued.status, 200, issued.body);
    return issued.json<{ token: string }>().token;
  };
  const holder = async (site: string): Promise<string | undefined> => {
    const kv = await h.store.get(`/sites/sites/${site}`);
    return kv === undefined ? undefined : (JSON.parse(kv.value) as { agent: string }).agent;
  };
  const register = (bearer: string, agent: string, csr: string, sites: string[]): Promise<Answer> =>
    h.call('POST', '/api/sites/v1/register', { bearer, body: { agent, csr, sites: sites.map((name) => ({ name, type: 'REGIONAL_EDGE', nodes: [{ name: 'n0', cpu: '2', memory: '4Gi' }] })) } });

  it('a token of a second agent cannot take an online site; a token minted for that site moves it, and is logged', async () => {
    const reusable = await tokenOf({ type: 'REGIONAL_EDGE' });
    const owner = await agentKeys();
    assert.equal((await register(reusable, 'owner', owner.csr, ['re-x'])).status, 200);
    const thief = await agentKeys();
    const taken = await register(reusable, 'thief', thief.csr, ['re-x']);
    assert.equal(taken.status, 409, taken.body);
    assert.match(taken.json<{ message: string }>().message, /^site "re-x" is registered by agent "owner" \(online\): a registration never moves a site to another agent \("thief"\); .*edgeplane site token --for-site re-x\)$/);
    assert.equal(await holder('re-x'), 'owner', 'nothing moved');

    const minted = await tokenOf({ type: 'REGIONAL_EDGE', site: 're-x' });
    const replacement = await agentKeys();
    const moved = await register(minted, 'replacement', replacement.csr, ['re-x']);
    assert.equal(moved.status, 200, moved.body);
    assert.equal(await holder('re-x'), 'replacement');
    assert.equal((await token({ type: 'REGIONAL_EDGE', site: 'no-such-site' })).status, 404, 'a token is minted only for a site that exists');
  });

  it('an agent name stays with its key: re-registering it needs that key (more sites are fine), or a token minted for one of its sites', async () => {
    const reusable = await tokenOf({ type: 'REGIONAL_EDGE' });
    const keys = await agentKeys();
    assert.equal((await register(reusable, 'keeper', keys.csr, ['re-k1'])).status, 200);
    assert.equal((await register(reusable, 'keeper', keys.csr, ['re-k1', 're-k2'])).status, 200, 'the same key registers more sites');
    const other = await agentKeys();
    const impostor = await register(reusable, 'keeper', other.csr, ['re-k3']);
    assert.equal(impostor.status, 409, impostor.body);
    assert.match(impostor.json<{ message: string }>().message, /^agent "keeper" is registered with another key/);
    const minted = await tokenOf({ type: 'REGIONAL_EDGE', site: 're-k2' });
    assert.equal((await register(minted, 'keeper', other.csr, ['re-k1', 're-k2'])).status, 200, 'a token minted for one of its sites replaces the key');
  });

  it('tokens count their uses: one with max_uses is refused once they are spent, and a refused registration spends none', async () => {
    const once = await tokenOf({ type: 'REGIONAL_EDGE', max_uses: 1 });
    const refusedFirst = await register(once, 'stranger', (await agentKeys()).csr, ['re-k1']);
    assert.equal(refusedFirst.status, 409, 'a site of another agent');
    const keys = await agentKeys();
    assert.equal((await register(once, 'single', keys.csr, ['re-s'])).status, 200);
    const spent = await register(once, 'single', keys.csr, ['re-s']);
    assert.equal(spent.status, 401, spent.body);
    assert.match(spent.json<{ message: string }>().message, /used 1 time, all it may be/);
    assert.equal((await token({ type: 'REGIONAL_EDGE', max_uses: 0 })).status, 400);
    assert.equal((await token({ type: 'REGIONAL_EDGE', max_uses: 1.5 })).status, 400);
  });
});
