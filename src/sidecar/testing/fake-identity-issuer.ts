import type { IdentityBundle, IdentityCsrs } from '../identity-bundle.js';
import type { ClientCredential, IdentityIssuer } from '../identity-issuer.js';
import { TestIdentityCa } from './test-identity-ca.js';

export interface IssuerCall {
  readonly kind: 'bootstrap' | 'renew';
  readonly at: number;
  readonly outcome: 'issued' | 'refused' | 'unavailable';
}

/**
 * An identity service in memory, on the test's clock: bootstrap always (a valid token is
 * assumed), renewal only with a client certificate it issued that is valid at that moment
 * (what mTLS would check). `available = false` makes every call fail as an outage would.
 */
export class FakeIdentityIssuer implements IdentityIssuer {
  available = true;
  readonly calls: IssuerCall[] = [];

  private constructor(
    readonly ca: TestIdentityCa,
    private readonly now: () => number,
    readonly lifetimeMs: number,
  ) {}

  static async create(now: () => number, lifetimeMs: number): Promise<FakeIdentityIssuer> {
    return new FakeIdentityIssuer(await TestIdentityCa.create(now()), now, lifetimeMs);
  }

  bootstrap(csrs: IdentityCsrs): Promise<IdentityBundle> {
    return this.answer('bootstrap', csrs, true);
  }

  async renew(csrs: IdentityCsrs, credential: ClientCredential): Promise<IdentityBundle> {
    return this.answer('renew', csrs, this.available && (await this.ca.accepts(credential.certificate, this.now())));
  }

  count(kind: IssuerCall['kind'], outcome: IssuerCall['outcome']): number {
    return this.calls.filter((c) => c.kind === kind && c.outcome === outcome).length;
  }

  private async answer(kind: IssuerCall['kind'], csrs: IdentityCsrs, authenticated: boolean): Promise<IdentityBundle> {
    const at = this.now();
    if (!this.available) {
      this.calls.push({ kind, at, outcome: 'unavailable' });
      throw new Error('connect ECONNREFUSED (the fake identity service is down)');
    }
    if (!authenticated) {
      this.calls.push({ kind, at, outcome: 'refused' });
      throw new Error('answered 401: Unauthorized: a valid client certificate is required');
    }
    this.calls.push({ kind, at, outcome: 'issued' });
    return this.ca.issue(csrs, { now: at, lifetimeMs: this.lifetimeMs });
  }
}
