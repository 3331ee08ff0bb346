import { isMap, isScalar, type Document } from 'yaml';

/**
 * Start offset in the text of the node at `path` in a parsed YAML document, or of the map
 * key `key` inside it; falls back to the nearest ancestor that exists (a missing key points
 * at the map that should hold it). Used by every YAML reader that reports `file:line:col`.
 */
export function yamlNodeOffset(doc: Document, path: readonly PropertyKey[], key?: string): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (node === undefined || node === null) continue;
    if (key !== undefined && depth === path.length && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
      const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (range) return range[0];
    }
    const range = (node as { range?: [number, number, number] | null }).range;
    if (range) return range[0];
  }
  return 0;
}
