/** The messages between the HTTP thread and the learning worker. */
export type ToWorker = { type: 'wake' } | { type: 'drain'; id: number } | { type: 'stop' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'indexed'; passageIds: number[] }
  | { type: 'drained'; id: number; jobs: number }
  | { type: 'stopped' };
