/**
 * Orders ToolSpec versions (`major.minor.patch` with an optional pre-release, the form
 * ToolSpecSchema accepts) by SemVer 2.0 precedence. Returns <0, 0 or >0.
 */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = splitOnce(a, '-');
  const [coreB = '', preB] = splitOnce(b, '-');
  const partsA = coreA.split('.').map(Number);
  const partsB = coreB.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (partsA[i] ?? 0) - (partsB[i] ?? 0);
    if (d !== 0) return d;
  }
  // A release outranks any of its pre-releases.
  if (preA === undefined || preB === undefined) {
    return (preA === undefined ? 1 : 0) - (preB === undefined ? 1 : 0);
  }
  return comparePreRelease(preA.split('.'), preB.split('.'));
}

function comparePreRelease(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Number(x) - Number(y);
    // Numeric identifiers sort before alphanumeric ones.
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

function splitOnce(value: string, sep: string): [string, string | undefined] {
  const i = value.indexOf(sep);
  return i < 0 ? [value, undefined] : [value.slice(0, i), value.slice(i + 1)];
}
