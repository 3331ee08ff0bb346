import type { State } from 'js-yaml';
import { formatPath } from './format-path.js';

// What js-yaml's `load` does not say, gathered from its parse listener in the same pass:
// where each node starts (for `file:line:col`), and what the document's nesting and aliases
// amount to (levels, alias uses, nodes aliases add), so a bound is refused where it is
// broken, before anything walks the value. ADR 0042 records why it is built this way.
//
// The listener reports `open` when js-yaml starts a node and `close` when it ends one, with
// the node's kind and value; a map's children are its keys and values in turn, a list's
// its items. Two habits of the parser are undone here: a block-context node is sometimes
// opened twice (an outer attempt that ends as its only child, same start and end: a
// "wrapper"), and a flow key without a value (`{a, b: 1}`) or a flow-list pair (`[a: 1]`)
// has no node of its own; the `:` after a key says which it is.

/** Where a collection starts in the text, its keys' starts and its children's. */
export interface PositionNode {
  readonly start: number;
  /** Map keys: where each key starts. */
  readonly keys?: ReadonlyMap<string, number>;
  /** A map's children by key: a collection, or a scalar's start. */
  readonly children?: ReadonlyMap<string, PositionNode | number>;
  /** A list's items by index: a collection, or a scalar's start. */
  readonly items?: readonly (PositionNode | number)[];
}

/** The bounds a document may not cross (see bounds.ts). */
interface WalkBounds {
  /** Alias (`*name`) uses allowed; 0 refuses any. */
  readonly maxAliases: number;
  /** Nodes all alias uses together may add to the document. */
  readonly maxAliasNodes: number;
  /** Nesting depth of maps and lists, in the text and through aliases. */
  readonly maxDepth: number;
}

/** A broken bound: thrown from the listener, which stops js-yaml where it stands. */
export class YamlBoundBreak extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

type Kind = 'map' | 'seq' | 'scalar' | 'alias';

/** A finished node. */
interface Built {
  readonly kind: Kind;
  readonly start: number;
  readonly end: number;
  /** The scalar's value (a map key's text comes from it). */
  readonly value: unknown;
  readonly position: PositionNode | number;
  /** Nodes in this subtree (aliases expanded), and its height (a collection is 1). */
  readonly size: number;
  readonly height: number;
}

interface Frame {
  /** Where the node's content starts: past separation space, comments and properties. */
  readonly start: number;
  /** Where js-yaml opened it (an empty node starts here). */
  readonly raw: number;
  readonly children: Built[];
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Skips separation space, comments and node properties (`&anchor`, `!tag`) from `i`. */
function contentStart(text: string, i: number): number {
  for (;;) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i);
    if (c !== 0x23 && c !== 0x26 && c !== 0x21) return i; // '#', '&', '!'
    while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
  }
}

/** Whether the next thing after `i`, past space and comments, is a `:`. */
function colonFollows(text: string, i: number): boolean {
  for (;;) {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 0x23) return text.charCodeAt(i) === 0x3a;
    while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
  }
}

/** The name of the alias at `start` (`*name`). */
function aliasName(text: string, start: number): string {
  let end = start + 1;
  while (end < text.length && !isSpace(text.charCodeAt(end)) && !',[]{}'.includes(text[end]!)) {
    end++;
  }
  return text.slice(start + 1, end);
}

/** Builds the position tree and checks the bounds from js-yaml's parse listener. */
export class YamlWalk {
  root: PositionNode | number | undefined;
  private documents = 0;
  private readonly stack: Frame[] = [];
  private readonly anchors = new Map<string, { size: number; height: number }>();
  private uses = 0;
  private addedNodes = 0;

  constructor(
    private readonly text: string,
    private readonly bounds: WalkBounds,
  ) {}

  /** js-yaml's `listener` option. */
  readonly listener = (event: 'open' | 'close', state: State): void => {
    if (event === 'open') this.open(state.position);
    else this.close(state);
  };

  /** Where the first level deeper than the bound starts, if the open nodes reach it. */
  tooDeepAt(): number | undefined {
    const innermost = this.stack[this.stack.length - 1];
    if (innermost === undefined) return undefined;
    // the innermost node is not known to be a collection yet: only its ancestors count
    const open = this.stack.pop()!;
    let levels = 0;
    let at: number | undefined;
    this.ancestors(open.start, (frame) => {
      if (++levels === this.bounds.maxDepth + 1) at = frame.start;
    });
    this.stack.push(open);
    return at;
  }

  private open(raw: number): void {
    if (this.stack.length === 0 && ++this.documents > 1) {
      const message = 'the text holds more than one document (a second starts here): keep one';
      throw new YamlBoundBreak(contentStart(this.text, raw), message);
    }
    this.stack.push({ start: contentStart(this.text, raw), raw, children: [] });
    if (this.stack.length > this.bounds.maxDepth + 1) {
      const at = this.tooDeepAt();
      if (at !== undefined) throw new YamlBoundBreak(at, this.depthMessage());
    }
  }

  /**
   * Where the node being read when js-yaml stopped at `offset` starts (its tag or anchor
   * included), if it starts on the same line: js-yaml marks the end of a bad tag or alias;
   * an operator looks for its start.
   */
  nodeStartBefore(offset: number): number | undefined {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) return undefined;
    let i = frame.raw;
    while (i < offset && isSpace(this.text.charCodeAt(i))) i++;
    return i <= offset && !this.text.slice(i, offset).includes('\n') ? i : undefined;
  }

  depthMessage(): string {
    return `nests deeper than ${this.bounds.maxDepth} levels of maps and lists`;
  }

  private close(state: State): void {
    const frame = this.stack.pop()!;
    const end = state.position;
    const built = this.build(frame, state.kind, state.result, end);
    const anchor = (state as State & { anchor?: string | null }).anchor;
    if (anchor !== null && anchor !== undefined) {
      this.anchors.set(anchor, { size: built.size, height: built.height });
    }
    const parent = this.stack[this.stack.length - 1];
    if (parent !== undefined) parent.children.push(built);
    else this.root = built.position;
  }

  private build(frame: Frame, kind: string | null, value: unknown, end: number): Built {
    const only = frame.children.length === 1 ? frame.children[0]! : undefined;
    if (only !== undefined && only.start === frame.start && only.end === end) return only;
    if (kind === 'mapping' || kind === 'sequence') {
      this.checkDepth(frame.start);
      return this.collection(frame, kind === 'mapping' ? 'map' : 'seq', end);
    }
    if (this.text.charCodeAt(frame.start) === 0x2a) return this.alias(frame, end);
    const start = end <= frame.start ? frame.raw : frame.start; // an empty node
    return { kind: 'scalar', start, end, value, position: start, size: 1, height: 0 };
  }

  /** A map: its keys' and values' positions, keyed by the key's text. */
  private mapNode(frame: Frame): PositionNode {
    const children = new Map<string, PositionNode | number>();
    const keys = new Map<string, number>();
    const kids = frame.children;
    for (let i = 0; i < kids.length; i++) {
      const key = kids[i]!;
      const hasValue = colonFollows(this.text, key.end);
      if (!hasValue && key.end <= key.start) continue; // an empty attempt, no key at all
      const value = hasValue ? kids[++i] : undefined;
      if (key.kind !== 'scalar') continue; // a complex key: counted, never addressed
      const name = String(key.value);
      children.set(name, (value ?? key).position);
      keys.set(name, key.start);
    }
    return children.size === 0 ? { start: frame.start } : { start: frame.start, keys, children };
  }

  /** A list's items; in a flow list, `a: 1` is one item (a one-pair map) of two nodes. */
  private listNode(frame: Frame): PositionNode {
    const items: (PositionNode | number)[] = [];
    const kids = frame.children;
    const flow = this.text.charCodeAt(frame.start) === 0x5b;
    for (let i = 0; i < kids.length; i++) {
      const item = kids[i]!;
      if (flow && colonFollows(this.text, item.end)) i++;
      items.push(item.position);
    }
    return items.length === 0 ? { start: frame.start } : { start: frame.start, items };
  }

  private collection(frame: Frame, kind: 'map' | 'seq', end: number): Built {
    const position = kind === 'map' ? this.mapNode(frame) : this.listNode(frame);
    let size = 1;
    let height = 1;
    for (const c of frame.children) {
      size += c.size;
      if (c.height + 1 > height) height = c.height + 1;
    }
    return { kind, start: frame.start, end, value: undefined, position, size, height };
  }

  private alias(frame: Frame, end: number): Built {
    const name = aliasName(this.text, frame.start);
    const extent = this.anchors.get(name) ?? { size: 1, height: 0 };
    this.uses++;
    this.addedNodes += extent.size;
    const issue = this.aliasIssue(name, frame.start, this.levelsAbove(frame.start) + extent.height);
    if (issue !== undefined) throw new YamlBoundBreak(frame.start, issue);
    return {
      kind: 'alias',
      start: frame.start,
      end,
      value: undefined,
      position: frame.start,
      ...extent,
    };
  }

  /** A collection at `start` (just closed) that lies deeper than the bound is refused. */
  private checkDepth(start: number): void {
    if (this.stack.length < this.bounds.maxDepth) return;
    const levels: number[] = [];
    this.ancestors(start, (frame) => levels.push(frame.start));
    levels.push(start);
    const at = levels[this.bounds.maxDepth];
    if (at !== undefined) throw new YamlBoundBreak(at, this.depthMessage());
  }

  /** Collections open around a node that starts at `start` (wrappers not counted). */
  private levelsAbove(start: number): number {
    let levels = 0;
    this.ancestors(start, () => levels++);
    return levels;
  }

  /** Calls `each` for the open frames around a node at `start` that are not wrappers. */
  private ancestors(start: number, each: (frame: Frame) => void): void {
    for (let i = 0; i < this.stack.length; i++) {
      const frame = this.stack[i]!;
      const next = this.stack[i + 1]?.start ?? start;
      // a wrapper has no finished child yet and starts where its one child does
      if (frame.children.length === 0 && frame.start === next) continue;
      each(frame);
    }
  }

  /** The bound this alias use crosses, worded for the operator, or undefined. */
  private aliasIssue(name: string, start: number, depth: number): string | undefined {
    const { maxAliases, maxAliasNodes, maxDepth } = this.bounds;
    if (this.uses > maxAliases) {
      return maxAliases === 0
        ? `YAML aliases (*${name}) are not allowed in this file`
        : `more than ${maxAliases} YAML aliases (*${name} is number ${this.uses})`;
    }
    if (this.addedNodes > maxAliasNodes) {
      return `YAML aliases expand too far: *${name} brings the nodes aliases add to ${this.addedNodes}, over ${maxAliasNodes}`;
    }
    if (depth > maxDepth) {
      const at = formatPath(this.pathHere(start)) || '(root)';
      return `nests deeper than ${maxDepth} levels of maps and lists at ${at} (through aliases)`;
    }
    return undefined;
  }

  /** The path of the node being closed: keys and indexes from the root (for messages). */
  private pathHere(start: number): PropertyKey[] {
    const path: PropertyKey[] = [];
    this.ancestors(start, ({ children: kids }) => {
      const last = kids[kids.length - 1];
      const isMap = kids.length > 0 && colonFollows(this.text, kids[0]!.end);
      if (!isMap) path.push(kids.length);
      else if (kids.length % 2 === 1 && last !== undefined) path.push(String(last.value));
    });
    return path;
  }
}

/**
 * Start offset of the node at `path`, or of the map key `key` inside it; falls back to the
 * nearest ancestor that exists (a missing key points at the map that should hold it).
 */
export function offsetAt(
  root: PositionNode | number | undefined,
  path: readonly PropertyKey[],
  key?: string,
): number {
  if (root === undefined) return 0;
  let node = root;
  let depth = 0;
  for (; depth < path.length && typeof node !== 'number'; depth++) {
    const step = path[depth];
    const next =
      node.items !== undefined
        ? typeof step === 'number' || (typeof step === 'string' && /^\d+$/.test(step))
          ? node.items[Number(step)]
          : undefined
        : node.children?.get(String(step));
    if (next === undefined) break;
    node = next;
  }
  if (typeof node === 'number') return node;
  if (key !== undefined && depth === path.length) {
    const at = node.keys?.get(key);
    if (at !== undefined) return at;
  }
  return node.start;
}
