/**
 * Resolves `Authorization: Bearer …` into c.var.caller for REST. A missing bearer is 401; a bad one
 * is 403 `unauthorized`, because REST treats it as an authenticated caller that is not allowed.
 */
import type { MiddlewareHandler } from 'hono';
import { AuthError, authenticate } from '../../auth/credentials';
import { ServiceError } from '../../errors';
import type { AppEnv } from '../app-env';
import type { Services } from '../../operations/operation';
import { resourceOf, type Site } from '../../site';

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1]! : null;
}

/** A consent token issued for another resource than this server's is refused like an unknown one. */
export function requireBearer(services: Services, site: Site): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header('Authorization'));
    if (!token) {
      c.header('WWW-Authenticate', 'Bearer');
      throw new ServiceError(
        'unauthorized',
        'A bearer credential is required: send Authorization: Bearer <key>.',
        {},
        401,
      );
    }
    try {
      c.set('caller', await authenticate(services.store, services.clock, token, { audience: resourceOf(site) }));
    } catch (err) {
      if (err instanceof AuthError) throw new ServiceError('unauthorized', err.message, { reason: err.reason });
      throw err;
    }
    await next();
  };
}
