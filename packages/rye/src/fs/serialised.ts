/** Read-modify-write of one file, serialised within the process: each run on a path starts after the previous one ends. */
const queues = new Map<string, Promise<unknown>>();

export async function serialised<T>(path: string, run: () => Promise<T>): Promise<T> {
  const previous = queues.get(path) ?? Promise.resolve();
  const next = previous.then(run, run);
  queues.set(path, next.catch(() => undefined));
  return next;
}
