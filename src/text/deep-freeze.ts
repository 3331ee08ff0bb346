/**
 * Freezes a value and everything reachable from it (arrays, nested objects); returns it. The
 * config (ADR 0043's last step) and every defined tool's spec (ADR 0089) are frozen with it.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
