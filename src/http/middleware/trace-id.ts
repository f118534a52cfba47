/** Gives every request a trace id, sent back as X-Trace-Id and written in its log line. */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env';
import { newTraceId } from '../../ids';
import type { Logger } from '../../log';

export function traceId(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = newTraceId();
    c.set('traceId', id);
    const started = performance.now();
    await next();
    c.header('X-Trace-Id', id);
    log.info('request', {
      trace_id: id,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  };
}
