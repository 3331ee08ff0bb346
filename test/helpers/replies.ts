/** The lines under `heading` in a reply, up to the next line that is not a list item. */
export function section(reply: string, heading: string): string[] {
  const lines = reply.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('- ') && !line.startsWith('  - ')) break;
    out.push(line);
  }
  return out;
}

/**
 * The `start it:` command a reply names for a capability, ready for startCli: its env
 * assignments, and its words after `caesar` (the built CLI stands in for it).
 */
export function commandOf(
  reply: string,
  capability: string,
): { args: string[]; env: Record<string, string> } {
  const line = reply.split('\n').find((l) => l.startsWith(`- ${capability}`)) ?? '';
  const command = /start it: `([^`]+)`/.exec(line)?.[1];
  if (command === undefined) throw new Error(`no start command for ${capability} in:\n${reply}`);
  const words = command.split(' ');
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0] ?? '')) {
    const [key, value] = words.shift()!.split('=') as [string, string];
    env[key] = value;
  }
  if (words.shift() !== 'caesar') throw new Error(`not a caesar command: ${command}`);
  return { args: words, env };
}
