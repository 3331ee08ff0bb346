import type { CaesarConfig } from '../../config/index.js';
import { runFile, startWatchdog } from '../../process/index.js';
import type { Logger } from '../../log/index.js';
import { underSupervisor } from './child.js';

/**
 * The watchdog of a brain or worker process (ADR 0070): its own thread, when
 * `watchdog.thread` asks for it (`auto`: only when no `caesar up` watches it), and systemd's,
 * when systemd runs it with `WatchdogSec=` (it sets `WATCHDOG_USEC` and `NOTIFY_SOCKET`):
 * `WATCHDOG=1` is sent from the event loop at half the interval, so a blocked loop stops
 * sending and systemd ends the process. `systemd-notify` sends it (the unit needs
 * `NotifyAccess=all`, since that helper is a process of its own).
 */
export function startOwnWatchdog(
  config: CaesarConfig,
  label: string,
  logger: Logger,
): { stop(): Promise<void>; ready(): void } {
  const { timeoutMs, thread } = config.watchdog;
  const own =
    timeoutMs > 0 && (thread === 'on' || (thread === 'auto' && !underSupervisor()))
      ? startWatchdog({ timeoutMs, label })
      : undefined;
  const systemd = feedSystemd(logger);
  return {
    ready: () => systemd?.notify('READY=1'),
    stop: async () => {
      systemd?.stop();
      await own?.stop();
    },
  };
}

/** A systemd service's watchdog: fed from the event loop, nothing when systemd asked for none. */
function feedSystemd(logger: Logger): { notify(line: string): void; stop(): void } | undefined {
  if (process.env.NOTIFY_SOCKET === undefined) return undefined;
  const usec = Number(process.env.WATCHDOG_USEC);
  const forPid = process.env.WATCHDOG_PID;
  let warned = false;
  const notify = (line: string) => {
    runFile('systemd-notify', [line], { timeoutMs: 5000, maxOutputBytes: 64 * 1024 }).catch(
      (err: unknown) => {
        if (warned) return;
        warned = true;
        logger.warn(
          { err },
          `systemd-notify ${line} failed: install systemd (it ships systemd-notify) and set NotifyAccess=all in the unit`,
        );
      },
    );
  };
  const watched =
    Number.isFinite(usec) && usec > 0 && (forPid === undefined || Number(forPid) === process.pid);
  const timer = watched ? setInterval(() => notify('WATCHDOG=1'), usec / 2000) : undefined;
  timer?.unref();
  return { notify, stop: () => clearInterval(timer) };
}
