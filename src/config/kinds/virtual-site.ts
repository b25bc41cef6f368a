import { parseSelector, SelectorParseError } from '../../apimachinery/index.js';
import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

export const SITE_TYPES = ['REGIONAL_EDGE', 'CUSTOMER_EDGE'] as const;

/** A set of sites of one type, chosen by label selector expressions (several are ORed). */
export const virtualSite: ConfigKind = {
  kind: 'virtual_site',
  slug: 'config',
  description: 'A set of sites of one type selected by label selector expressions.',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object(
    {
      site_selector: schema.object({ expressions: schema.arrayOf(schema.string(), { minItems: 1, maxItems: 32 }) }, ['expressions']),
      site_type: schema.enumOf(SITE_TYPES),
    },
    ['site_selector', 'site_type'],
  ),
  oneOfs: [],
  validate(spec) {
    const expressions = (spec['site_selector'] as { expressions: string[] }).expressions;
    return expressions.flatMap((expression, i) => {
      try {
        parseSelector(expression);
        return [];
      } catch (error) {
        return [`spec.site_selector.expressions[${i}]: ${error instanceof SelectorParseError ? error.message : String(error)}`];
      }
    });
  },
};
