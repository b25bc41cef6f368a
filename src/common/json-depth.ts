/**
 * How deeply `value` (a parsed JSON value) nests objects and arrays, counted without
 * recursion and stopping as soon as it passes `limit`: a body nested 100,000 levels deep
 * is refused before code that walks it recursively overflows its stack.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}
