import type { SiteType } from '../sites/site-model.js';

export interface PlacedSite {
  readonly name: string;                      // site name (unique platform-wide)
  readonly type: SiteType;                    // 'REGIONAL_EDGE' | 'CUSTOMER_EDGE'
  readonly labels: Readonly<Record<string, string>>;
}
