import { Resolver } from 'node:dns/promises';
import type { Clock } from '../common/clock.js';
import type { StoredObject } from './envelope.js';
import { VERIFICATION } from './kinds/dns-domain.js';
import type { ObjectRegistry, Target } from './registry.js';

export interface TxtResolver {
  resolveTxt(name: string): Promise<string[][]>;
}

/** Node's resolver, or one that asks only `server` (`host:port`), e.g. a test DNS server. */
export function dnsResolver(server: string | undefined, timeoutMs = 3000): TxtResolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (server !== undefined) resolver.setServers([server]);
  return resolver;
}

/**
 * Verifies a dns_domain: looks the domain's TXT records up and succeeds when one equals the
 * value the status asked the owner to publish. The outcome is written to the status.
 */
export async function verifyDnsDomain(registry: ObjectRegistry, resolver: TxtResolver, clock: Clock, target: Target, name: string): Promise<Record<string, unknown>> {
  const object = await registry.get(target, name);
  const txt = object.status[0]?.['txt_record'];
  const expected = typeof txt === 'string' ? txt : '';
  let outcome: { state: string; message: string };
  try {
    const records = (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    outcome = records.includes(expected)
      ? { state: VERIFICATION.success, message: `found the TXT record on ${name}` }
      : { state: VERIFICATION.failed, message: `${name} has ${records.length} TXT record(s), none with the expected value` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'ERROR';
    const reason = code === 'ENODATA' || code === 'ENOTFOUND' ? `no TXT record found on ${name}` : `DNS lookup of ${name} failed (${code})`;
    outcome = { state: VERIFICATION.failed, message: reason };
  }
  const updated = await registry.updateStatus(target, name, (current: StoredObject) => [
    {
      ...(current.status[0] ?? {}),
      domain_verification: outcome.state,
      verification_message: outcome.message,
      last_verification_time: clock.rfc3339Nano(),
    },
  ]);
  return updated.status[0] ?? {};
}
