/**
 * Polls `check` until it returns a truthy value or `timeoutMs` passes; for conditions that
 * have no event to await. Fails with `what` so a broken condition names itself.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string | (() => string),
  timeoutMs = 5000,
  intervalMs = 10,
): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) {
      // a function says what it waited for as things stand at the timeout, not at the start
      const said = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${said}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** `promise`, or a failure naming `what` once `timeoutMs` passes: a hang guard for events. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
