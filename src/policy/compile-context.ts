import type { RuleList, RuleRef } from './decision.js';
import type { YamlSource } from './yaml-source.js';

/** A rate-limited rule's limiter: kept across reloads while `fingerprint` is unchanged. */
export interface RateSlot {
  readonly fingerprint: string;
  readonly calls: number;
  readonly windowMs: number;
  /** The rule names principals or groups: one window per principal (ADR 0096). */
  readonly perPrincipal: boolean;
}

/** State shared by the rule compilers while one file compiles. */
export class CompileContext {
  readonly rateSlots: RateSlot[] = [];

  constructor(
    readonly file: string,
    readonly source: YamlSource,
    /** SHA-256 of the file's bytes: every citation names the policy it points into. */
    readonly sha256: string,
  ) {}

  /** The rule's reference: its explicit id, else `list[index]`, and where it starts. */
  ref(list: RuleList, index: number, explicitId?: string): RuleRef {
    const at = this.source.locate([list, index]);
    const id = explicitId ?? `${list}[${index}]`;
    return Object.freeze({ id, file: this.file, line: at.line, column: at.column, list, index });
  }

  /**
   * `<id> (<file>:<line>:<col> in policy sha256 <12 hex>)`: the line and column are those of
   * the file as it was compiled, so the citation names that version. Once the file on disk is
   * edited (or broken) while this policy stays enforced, its lines may hold something else;
   * the sha says which text the position belongs to (`caesar policy status`).
   */
  label(ref: RuleRef): string {
    return citeRule(ref, this.sha256);
  }

  /** Reserves a limiter slot for a rate-limited rule. */
  rateSlot(fingerprint: string, calls: number, windowMs: number, perPrincipal: boolean): number {
    this.rateSlots.push({ fingerprint, calls, windowMs, perPrincipal });
    return this.rateSlots.length - 1;
  }
}

/** `<id> (<file>:<line>:<col> in policy sha256 <12 hex>)`: a rule as the enforced policy has it. */
export function citeRule(ref: RuleRef, sha256: string): string {
  return `${ref.id} (${ref.file}:${ref.line}:${ref.column} in policy sha256 ${sha256.slice(0, 12)})`;
}
