import { goQuote, isMap } from './go-format.js';
import { keyElement, type PathElement } from './path-element.js';
import type { ListType } from './type-schema.js';

/**
 * The path element that identifies a list item, or the reason it has none (upstream's
 * `listItemToPathElement` messages): associative lists with keys use the item's key fields
 * (all required, no defaulting in 1.17), sets use the item's value, atomic lists the index.
 */
export function listItemElement(list: ListType, index: number, item: unknown): PathElement | string {
  if (!list.associative) return { kind: 'index', index };
  if (list.keys.length > 0) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isMap(item)) return 'associative list with keys may not have non-map elements';
    const fields: Array<readonly [string, unknown]> = [];
    for (const key of list.keys) {
      if (!Object.hasOwn(item, key)) return `associative list with keys has an element that omits key field ${goQuote(key)}`;
      fields.push([key, item[key]]);
    }
    return keyElement(fields);
  }
  if (isMap(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return { kind: 'value', value: item };
}
