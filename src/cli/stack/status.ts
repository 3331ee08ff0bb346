/** Prints one status line of `caesar up` (stdout; the children's logs go to stderr). */
export type Say = (line: string) => void;

/** `name` in a column of 13, then the text: `nats-server   nats://127.0.0.1:4222  (pid 7, …)`. */
export function statusLine(name: string, text: string): string {
  return `${name.padEnd(13)} ${text}`;
}
