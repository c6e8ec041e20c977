import { sleepOnTimer, type Clock } from '../../runtime/clock.js';
import type { ParentLink } from './parent-link.js';

/**
 * The child's clock: the parent's virtual clock seen over IPC. `now` is the time the parent
 * last sent (it cannot move while the child is busy); sleeps and timers are registered on the
 * parent's clock and end when it says they fired. Cancelling one tells the parent too.
 */
export class RemoteClock implements Clock {
  private nextTimer = 1;
  private readonly timers = new Map<number, () => void>();

  constructor(private readonly link: ParentLink) {
    link.on('fire', ({ timer }) => {
      const fire = this.timers.get(timer);
      this.timers.delete(timer);
      fire?.();
    });
  }

  now(): number {
    return this.link.now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOnTimer((delay, fire) => this.setTimer(delay, fire), ms, signal);
  }

  setTimer(ms: number, fire: () => void): () => void {
    const timer = this.nextTimer++;
    this.timers.set(timer, fire);
    this.link.send({ type: 'timer', timer, ms: Math.max(0, ms) });
    return () => {
      if (!this.timers.delete(timer)) return;
      this.link.send({ type: 'cancel-timer', timer });
    };
  }
}
