import { useSyncExternalStore } from 'react';

/**
 * A value that components subscribe to. The UI keeps its state in several of these, one per
 * concern, so that a streamed chunk re-renders only the streaming view and a keystroke only the
 * prompt: nothing per update walks the transcript.
 */
export class Store<T> {
  private value: T;
  private readonly listeners = new Set<() => void>();

  constructor(initial: T) {
    this.value = initial;
  }

  readonly get = (): T => this.value;

  set(next: T): void {
    if (Object.is(next, this.value)) return;
    this.value = next;
    for (const l of [...this.listeners]) l();
  }

  update(fn: (current: T) => T): void {
    this.set(fn(this.value));
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };
}

export function useStore<T>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}
