import type { RuleList, RuleRef } from './decision.js';
import type { RateSlot } from './compiled.js';
import type { YamlSource } from './yaml-source.js';

/** State shared by the rule compilers while one file compiles. */
export class CompileContext {
  readonly rateSlots: RateSlot[] = [];

  constructor(
    readonly file: string,
    readonly source: YamlSource,
  ) {}

  /** The rule's reference: its explicit id, else `list[index]`, and where it starts. */
  ref(list: RuleList, index: number, explicitId?: string): RuleRef {
    const at = this.source.locate([list, index]);
    const id = explicitId ?? `${list}[${index}]`;
    return Object.freeze({ id, file: this.file, line: at.line, column: at.column, list, index });
  }

  /** `<id> (<file>:<line>:<col>)` */
  label(ref: RuleRef): string {
    return `${ref.id} (${ref.file}:${ref.line}:${ref.column})`;
  }

  /** Reserves a limiter slot for a rate-limited rule. */
  rateSlot(fingerprint: string, calls: number, windowMs: number): number {
    this.rateSlots.push({ fingerprint, calls, windowMs });
    return this.rateSlots.length - 1;
  }
}
