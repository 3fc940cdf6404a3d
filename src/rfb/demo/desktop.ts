import { DemoScreen } from './screen.js';
import type { Rect } from '../wire/geometry.js';

/** Told which rectangles of the screen were repainted. */
export type ScreenListener = (changed: Rect[]) => void;

/**
 * One screen shared by every session of a VM, like a real console: input from one client shows
 * in all. The clock timer runs only while a session is attached and never keeps Node alive.
 */
export class DemoDesktop {
  readonly screen: DemoScreen;
  private readonly listeners = new Set<ScreenListener>();
  private timer: NodeJS.Timeout | undefined;

  constructor(name: string, width: number, height: number) {
    this.screen = new DemoScreen(name, width, height);
  }

  get clockRunning(): boolean {
    return this.timer !== undefined;
  }

  attach(listener: ScreenListener): void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) {
      this.screen.setClock(new Date());
      this.scheduleTick();
    }
  }

  detach(listener: ScreenListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size === 0 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  /** Applies a change to the screen and tells every session what was repainted. */
  change(apply: (screen: DemoScreen) => Rect[]): void {
    const changed = apply(this.screen);
    if (changed.length) for (const listener of this.listeners) listener(changed);
  }

  /** Fires just after each wall-clock second so the clock flips when the viewer's own clock does. */
  private scheduleTick(): void {
    this.timer = setTimeout(
      () => {
        this.change((screen) => screen.setClock(new Date()));
        if (this.listeners.size > 0) this.scheduleTick();
        else this.timer = undefined;
      },
      1000 - (Date.now() % 1000) + 5,
    );
    this.timer.unref();
  }
}
