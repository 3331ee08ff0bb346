/**
 * Runs `stop` on the first SIGINT or SIGTERM and resolves when it is done; a second signal
 * runs `now` (which must not wait: `caesar up` kills its children there) and exits at once
 * (130 for SIGINT, 143 for SIGTERM), for an operator who does not want to wait. Rejects when
 * `stop` does.
 */
export function stopOnSignal(stop: () => Promise<void>, now?: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const exit = (code: number) => {
      now?.();
      process.exit(code);
    };
    const onSignal = () => {
      process.once('SIGINT', () => exit(130));
      process.once('SIGTERM', () => exit(143));
      stop().then(resolve, reject);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
