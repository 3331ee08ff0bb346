const MAX_SHOWN = 60;

/** A short, safe rendering of a value for decision reasons (never a whole payload). */
export function show(value: unknown): string {
  const text = render(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

function render(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'nothing';
    case 'string':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'symbol':
      return value.toString();
    case 'function':
      return 'a function';
    default:
      return value === null ? 'null' : Array.isArray(value) ? 'a list' : 'an object';
  }
}
