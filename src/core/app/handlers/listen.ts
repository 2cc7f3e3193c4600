// An area's event source over an emitter: subscribe a handler, get the function that ends it.

export function listen<T>(
  emitter: {
    on(event: string, h: (p: T) => void): unknown;
    off(event: string, h: (p: T) => void): unknown;
  },
  event: string,
  handler: (payload: T) => void,
): () => void {
  emitter.on(event, handler);
  return () => emitter.off(event, handler);
}
