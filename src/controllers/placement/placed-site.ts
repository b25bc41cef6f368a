import type { SiteType } from '../../site-api/site-model.js';

/** A site a placed object belongs on, as controllers see it. Objects handed out are shared and frozen. */
export interface PlacedSite {
  /** The site's name (unique platform-wide). */
  readonly name: string;
  readonly type: SiteType;
  /** The site object's labels (registration sets `svc.io/siteName`, `svc.io/siteType`, and the given ones). */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * False when the site keeps the work it has but should get no new work (its state is, for
   * example, FAILED: see `siteWorkRule`). Absent means true. Controllers that honour it keep
   * their existing per-site objects there and create none; controllers that ignore it create
   * pods the scheduler cannot bind (the site's nodes are not ready), which is harmless.
   */
  readonly acceptsNewWork?: boolean;
}
