// Keys that can reach an object's prototype when parsed JSON is later merged or copied key
// by key (`target[key] = value`): `__proto__`, and `constructor` holding a `prototype`. The
// same rule as secure-json-parse (fastify's JSON parser), but with the path, so an answer
// can say where the key is.

/** Where a prototype key was found: the path to it (ending in the key) and the key. */
interface PrototypeKey {
  readonly path: readonly PropertyKey[];
  readonly key: '__proto__' | 'constructor';
}

/**
 * The first `__proto__` key, or `constructor` key whose value is an object with a
 * `prototype` key, in a parsed JSON value (`JSON.parse` makes `__proto__` an own key, which
 * is harmless until something copies it). Walks without recursion. `undefined` when none.
 */
export function findPrototypeKey(value: unknown): PrototypeKey | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: { value: object; path: PropertyKey[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (Array.isArray(item.value)) {
      for (let i = item.value.length - 1; i >= 0; i--)
        push(stack, item.value[i], [...item.path, i]);
      continue;
    }
    const keys = Object.keys(item.value);
    const own = item.value as Record<string, unknown>;
    if (keys.includes('__proto__')) return { path: [...item.path, '__proto__'], key: '__proto__' };
    const ctor = keys.includes('constructor') ? own['constructor'] : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) {
      return { path: [...item.path, 'constructor'], key: 'constructor' };
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      push(stack, own[key], [...item.path, key]);
    }
  }
  return undefined;
}

function push(stack: { value: object; path: PropertyKey[] }[], v: unknown, path: PropertyKey[]) {
  if (v !== null && typeof v === 'object') stack.push({ value: v, path });
}
